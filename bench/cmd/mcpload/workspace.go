package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The workspace: one directory holding a generated Go module (go/, served
// by gopls) and a small Python project (py/, served by pyright). The
// navigation targets live in files nobody writes, so their right answers
// never change; every (client, worker) pair owns one Go package and
// three Python files that only it writes (edit.go).

// goPackages is the length of the Go module's package chain.
const goPackages = 6

// goMid is the package whose call of the previous package's Run every Go
// navigation operation asks about.
const goMid = goPackages / 2

// Line numbers in a chain file (chainFile): Run is declared on runLine,
// calls the previous package's Run on callLine and helper twice on the
// line after; helper is declared on helperLine, Square on squareLine.
const (
	runLine    = 12
	callLine   = 13
	helperLine = 17
	squareLine = 20
)

// generate writes the workspace into dir: the Go module, the Python
// project, and the clean edit files of each of clients x workers.
func generate(dir string, clients, workers int) error {
	files := map[string]string{
		"go/go.mod":         "module example.com/load\n\ngo 1.22\n",
		"go/shape/shape.go": "// Package shape is the interface every package implements.\npackage shape\n\n// Shape has an area.\ntype Shape interface {\n\tArea() float64\n}\n",
		"go/main.go": fmt.Sprintf("package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/load/p%d\"\n)\n\nfunc main() {\n\tfmt.Println(p%d.Run(3))\n}\n",
			goPackages-1, goPackages-1),
		"py/pyproject.toml": "[project]\nname = \"load\"\nversion = \"0.1.0\"\n",
		"py/shapes.py":      pyShapes,
		"py/report.py":      pyReport,
	}
	for i := range goPackages {
		files[fmt.Sprintf("go/p%d/p%d.go", i, i)] = chainFile(i)
	}
	for c := range clients {
		for w := range workers {
			for _, f := range workerEdits(c, w) {
				files[f.path] = f.text(0)
				if f.kind == editDep {
					files[f.asked] = f.userText()
				}
			}
		}
	}
	for name, text := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), text); err != nil {
			return err
		}
	}
	return nil
}

// chainFile is package p<i>: Run calls the previous package's Run (p0's
// calls nothing outside) and a helper; Square implements shape.Shape.
func chainFile(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package p%d is link %d of the chain.\npackage p%d\n\n", i, i, i)
	if i > 0 {
		fmt.Fprintf(&b, "import (\n\t\"example.com/load/p%d\"\n\t\"example.com/load/shape\"\n)\n", i-1)
	} else {
		b.WriteString("import (\n\t\"fmt\"\n\t\"example.com/load/shape\"\n)\n")
	}
	b.WriteString("\nvar _ shape.Shape = Square{}\n\n") // lines 8-10
	fmt.Fprintf(&b, "// Run is the entry point of package p%d.\n", i)
	b.WriteString("func Run(x int) int {\n") // runLine
	if i > 0 {
		fmt.Fprintf(&b, "\tv := p%d.Run(x)\n", i-1) // callLine
	} else {
		b.WriteString("\tv := len(fmt.Sprint(x))\n")
	}
	b.WriteString("\treturn helper(v) + helper(x)\n}\n\n")
	fmt.Fprintf(&b, "func helper(x int) int { return x*%d + 1 }\n\n", i+2)         // helperLine
	b.WriteString("// Square is a shape.\ntype Square struct{ Side float64 }\n\n") // squareLine
	b.WriteString("// Area is the square's area.\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n")
	return b.String()
}

// pyShapes and pyReport are the Python project (the same as the mcp
// package's pynav test data, whose answers its tests check exactly):
// report.py calls shapes.total from report (line 8, after a non-ASCII
// string) and summary (line 14).
const pyShapes = `"""Shapes with exact answers for navigation tests."""

import math


class Shape:
    """Anything with an area."""

    def area(self) -> float:
        raise NotImplementedError


class Square(Shape):
    """A square with a side."""

    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


class Circle(Shape):
    """A circle with a radius."""

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return math.pi * self.radius * self.radius


def total(shapes: list[Shape]) -> float:
    """Add up the areas of shapes."""
    return sum(s.area() for s in shapes)
`

const pyReport = `"""Reports that call total from two places."""

from shapes import Circle, Shape, Square, total


def report(shapes: list[Shape]) -> str:
    """Describe the total area of shapes."""
    greeting = "héllo 😀"; n = total(shapes)
    return f"{greeting} {n:.2f}"


def summary() -> float:
    """The total area of a unit circle and a square of side 2."""
    return total([Square(2), Circle(1)])
`

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
