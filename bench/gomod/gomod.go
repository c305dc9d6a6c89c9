// Package gomod generates the Go module the benchmarks run gopls on (used
// by bench/cmd/mcpbench and bench/cmd/daemonbench): package shape with an
// interface, a chain of packages p0..p(k-1) where each Run calls the
// previous package's Run and a local helper, and implements the
// interface, and a main package calling the last Run.
package gomod

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Loc is an editor position: a path relative to the module, 1-based line
// and column (in characters).
type Loc struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Target is what the benchmarks ask about: the call of p(m-1).Run in pm,
// m = k/2, so it has callers, callees and references in other packages.
type Target struct {
	Call  Loc    // the call site, at the called name
	Impl  Loc    // the interface name, for goToImplementation
	Query string // a workspaceSymbol query
	Def   Loc    // where the called function is declared
	Name  string // the called name
}

// RunLine is the line of "func Run" in a chain file.
const RunLine = 12

// Generate writes a module of n .go files to dir and returns the target.
func Generate(dir string, n int) (Target, error) {
	k := max(n-2, 3)
	files := map[string]string{
		"go.mod":         "module example.com/bench\n\ngo 1.22\n",
		"shape/shape.go": "// Package shape is the interface every package implements.\npackage shape\n\n// Shape has an area.\ntype Shape interface {\n\tArea() float64\n}\n",
	}
	for i := range k {
		files[fmt.Sprintf("p%d/p%d.go", i, i)] = chainFile(i)
	}
	files["main.go"] = fmt.Sprintf("package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/bench/p%d\"\n)\n\nfunc main() {\n\tfmt.Println(p%d.Run(3))\n}\n", k-1, k-1)
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Target{}, err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return Target{}, err
		}
	}
	m := k / 2
	return Target{
		Call:  Loc{Path: fmt.Sprintf("p%d/p%d.go", m, m), Line: RunLine + 1, Column: len("\tv := p"+strconv.Itoa(m-1)+".") + 1},
		Impl:  Loc{Path: "shape/shape.go", Line: 5, Column: len("type ") + 1},
		Query: "Run",
		Def:   Loc{Path: fmt.Sprintf("p%d/p%d.go", m-1, m-1), Line: RunLine, Column: len("func ") + 1},
		Name:  "Run",
	}, nil
}

// chainFile is package p<i>: Run calls the previous package's Run (p0's
// calls nothing outside) and a helper; a type implements shape.Shape.
func chainFile(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package p%d is link %d of the chain.\npackage p%d\n\n", i, i, i)
	if i > 0 {
		fmt.Fprintf(&b, "import (\n\t\"example.com/bench/p%d\"\n\t\"example.com/bench/shape\"\n)\n", i-1)
	} else {
		b.WriteString("import (\n\t\"fmt\"\n\t\"example.com/bench/shape\"\n)\n")
	}
	// Lines 9-11, then Run at RunLine (12).
	b.WriteString("\nvar _ shape.Shape = Square{}\n\n")
	fmt.Fprintf(&b, "// Run is the entry point of package p%d.\n", i)
	b.WriteString("func Run(x int) int {\n")
	if i > 0 {
		fmt.Fprintf(&b, "\tv := p%d.Run(x)\n", i-1)
	} else {
		b.WriteString("\tv := len(fmt.Sprint(x))\n")
	}
	b.WriteString("\treturn helper(v) + helper(x)\n}\n\n")
	fmt.Fprintf(&b, "func helper(x int) int { return x*%d + 1 }\n\n", i+2)
	b.WriteString("// Square is a shape.\ntype Square struct{ Side float64 }\n\n")
	b.WriteString("// Area is the square's area.\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n")
	return b.String()
}
