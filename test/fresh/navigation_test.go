package fresh

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// goplsLocation is one location line of `gopls definition|references`:
// path:line:col-col, then what gopls says of it.
var goplsLocation = regexp.MustCompile(`^(.+?):(\d+):(\d+)-\d+`)

// goplsNavigate is the oracle of navigation: the locations the gopls
// command line gives for op (definition, references -d) at a 1-based
// line and byte column of rel, as "path:line:col" relative to ws, sorted.
func goplsNavigate(t *testing.T, ws, op, rel string, line, col int) []string {
	t.Helper()
	args := strings.Fields(op)
	args = append(args, fmt.Sprintf("%s:%d:%d", filepath.Join(ws, rel), line, col))
	cmd := exec.Command(testenv.ServerBinary(t, "gopls"), args...)
	cmd.Dir = ws
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gopls %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var locs []string
	for _, l := range strings.Split(string(out), "\n") {
		if m := goplsLocation.FindStringSubmatch(l); m != nil {
			p, _ := filepath.Rel(ws, m[1])
			locs = append(locs, fmt.Sprintf("%s:%s:%s", filepath.ToSlash(p), m[2], m[3]))
		}
	}
	slices.Sort(locs)
	return locs
}

// navigate asks the session the same (LSP positions: 0-based; the files
// are ASCII, so columns are bytes) and returns what goplsNavigate does.
func navigate(t *testing.T, s *agentlsp.Session, ws, op, rel string, line, col int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pos := agentlsp.Position{Line: uint32(line - 1), Character: uint32(col - 1)}
	var ans *results.LocationsAnswer
	var err error
	if op == "definition" {
		ans, err = s.Definition(ctx, rel, pos)
	} else {
		ans, err = s.References(ctx, rel, pos)
	}
	if err != nil {
		t.Fatalf("%s %s:%d:%d: %v", op, rel, line, col, err)
	}
	var locs []string
	for _, l := range ans.Locations {
		p, _ := filepath.Rel(ws, l.Path)
		locs = append(locs, fmt.Sprintf("%s:%d:%d", filepath.ToSlash(p), l.Range.Start.Line+1, l.Range.Start.Character+1))
	}
	slices.Sort(locs)
	return locs
}

// agreeOnNavigation compares a navigation answer with gopls's command
// line, asked right after it about the same files.
func agreeOnNavigation(t *testing.T, s *agentlsp.Session, ws, op, rel string, line, col int, when string) {
	t.Helper()
	got := navigate(t, s, ws, strings.Fields(op)[0], rel, line, col)
	if want := goplsNavigate(t, ws, op, rel, line, col); !slices.Equal(got, want) {
		t.Errorf("%s: %s %s:%d:%d = %v; gopls says %v", when, op, rel, line, col, got, want)
	}
}

// TestNavigationIntoPackagesWithIgnoredNames: a Go package in a directory
// whose name the watcher skips as a build's output (internal/build) is
// watched like any other, so a definition into it and the references of
// its function follow the changes another process makes there, as the
// gopls command line does. Before, agentlsp answered from gopls's first
// reading of the package: the old line, no new callers.
func TestNavigationIntoPackagesWithIgnoredNames(t *testing.T) {
	ws := workspace(t, map[string]string{
		"go.mod":              "module example.com/app\n\ngo 1.22\n",
		"internal/build/b.go": "package build\n\nfunc Helper(x int) int { return x + 1 }\n",
		"main.go":             "package main\n\nimport \"example.com/app/internal/build\"\n\nfunc main() {\n\tprintln(build.Helper(3))\n}\n",
	})
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "main.go")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 16, "before")

	write(t, ws, "internal/build/b.go", "package build\n\n// one\n// two\n// three\nfunc Helper(x int) int { return x + 1 }\n")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 16, "lines added above it")
	write(t, ws, "internal/build/c.go", "package build\n\nfunc Other() int { return Helper(1) }\n")
	agreeOnNavigation(t, s, ws, "references -d", "main.go", 6, 16, "a caller added")
	write(t, ws, "internal/build/c.go", "package build\n\nfunc Other() int { return Helper2(1) }\n\nfunc Helper(x int) int { return x + 2 }\n")
	write(t, ws, "internal/build/b.go", "package build\n\nfunc Helper2(x int) int { return x + 1 }\n")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 16, "moved to another file")
	if ans := definitionAt(t, s, "main.go", 6, 16); len(ans.Unwatched) != 0 {
		t.Errorf("definition into internal/build: Unwatched = %v, want none (it is watched)", ans.Unwatched)
	}
}

// TestNavigationIntoVendorAfterGoModVendor: go mod vendor, run again after
// the vendored module changed, replaces vendor/ as a whole; definitions
// into it and references from it agree with gopls's command line. Before,
// gopls kept the old vendored files, and the kept definition target its
// old text.
func TestNavigationIntoVendorAfterGoModVendor(t *testing.T) {
	other := workspace(t, map[string]string{
		"go.mod": "module example.com/other\n\ngo 1.22\n",
		"o.go":   "package other\n\nfunc Deep() int { return 7 }\n",
	})
	ws := workspace(t, map[string]string{
		"go.mod":  "module example.com/app\n\ngo 1.22\n\nrequire example.com/other v0.0.0\n\nreplace example.com/other => " + other + "\n",
		"main.go": "package main\n\nimport \"example.com/other\"\n\nfunc main() {\n\tprintln(other.Deep())\n}\n",
	})
	vendor := func() {
		t.Helper()
		cmd := exec.Command("go", "mod", "vendor")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go mod vendor: %v\n%s", err, out)
		}
	}
	vendor()
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "main.go")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 16, "before")

	write(t, other, "o.go", "package other\n\n// one\n// two\n\nfunc Deep() int { return 7 }\n")
	vendor()
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 16, "vendored again")
	write(t, other, "p.go", "package other\n\nfunc More() int { return Deep() }\n")
	vendor()
	agreeOnNavigation(t, s, ws, "references -d", "main.go", 6, 16, "a caller vendored")

	// A vendored file edited in place is not seen: the answer says so.
	ans := definitionAt(t, s, "main.go", 6, 16)
	if want := []string{filepath.Join(ws, "vendor/example.com/other/o.go")}; !slices.Equal(ans.Unwatched, want) {
		t.Errorf("definition into vendor/: Unwatched = %v, want %v", ans.Unwatched, want)
	}
}

// definitionAt asks the session for the definition at a 1-based line and
// column.
func definitionAt(t *testing.T, s *agentlsp.Session, rel string, line, col int) *results.LocationsAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ans, err := s.Definition(ctx, rel, agentlsp.Position{Line: uint32(line - 1), Character: uint32(col - 1)})
	if err != nil {
		t.Fatalf("definition %s:%d:%d: %v", rel, line, col, err)
	}
	return ans
}

// TestNavigationThroughASymlinkedPackage: a package imported through a
// symbolic link of the workspace (lib -> shared/real), edited through its
// real path, is answered as it is now, as gopls's command line does.
// Before, the watcher reported the real path only, and gopls, which knows
// the files by the link's path, answered from its first reading of them.
func TestNavigationThroughASymlinkedPackage(t *testing.T) {
	ws := workspace(t, map[string]string{
		"go.mod":           "module example.com/app\n\ngo 1.22\n",
		"shared/real/a.go": "package lib\n\nfunc Helper(x int) int { return x + 1 }\n",
		"main.go":          "package main\n\nimport \"example.com/app/lib\"\n\nfunc main() {\n\tprintln(lib.Helper(3))\n}\n",
	})
	if err := os.Symlink("shared/real", filepath.Join(ws, "lib")); err != nil {
		t.Fatal(err)
	}
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "main.go")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 14, "before")
	write(t, ws, "shared/real/a.go", "package lib\n\n// one\n// two\n\nfunc Helper(x int) int { return x + 1 }\n")
	agreeOnNavigation(t, s, ws, "definition", "main.go", 6, 14, "edited through the real path")
	agreeOnNavigation(t, s, ws, "references -d", "main.go", 6, 14, "edited through the real path")
}
