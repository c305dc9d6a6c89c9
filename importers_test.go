package agentlsp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// importersRuntime runs the fake for .py files with openImporters 2 (and
// openTargets 1: its own list) on a project where core.py is imported by
// a.py, b.py and d.py, and a.py by c.py.
func importersRuntime(t *testing.T) (*agentlsp.Runtime, string, string) {
	t.Helper()
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	for name, text := range map[string]string{
		"core.py": "def f(x: int) -> int:\n    return x\n",
		"d.py":    "import core\n",
		"b.py":    "from core import f\n",
		"a.py":    "from core import f\n",
		"c.py":    "import a\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt, record := fakeRuntimeIn(t, ws, func(s *config.Server) { s.OpenImporters, s.OpenTargets = 2, 1 })
	return rt, ws, record
}

// TestChangeOpensItsImportersFirst: an edit that changes core.py opens its
// nearest importers, as many as the server keeps, before core.py reaches
// the server; an edit that changes nothing opens none; the importers stay
// open until no session holds a document there.
func TestChangeOpensItsImportersFirst(t *testing.T) {
	rt, ws, record := importersRuntime(t)
	s := rt.Session("agent")
	ctx := context.Background()
	if _, err := s.Edit(ctx, "core.py", "def f(x: int, y: int) -> int:\n    return x\n"); err != nil {
		t.Fatal(err)
	}
	open, _ := opened(t, record)
	if want := []string{"a.py", "b.py", "core.py"}; !cmp.Equal(open, want) {
		t.Errorf("opened %q, want %q: the two nearest importers, by name, before the edited file", open, want)
	}
	if _, err := s.Edit(ctx, "core.py", "def f(x: int, y: int) -> int:\n    return x\n"); err != nil {
		t.Fatal(err)
	}
	if again, _ := opened(t, record); len(again) != len(open) {
		t.Errorf("an edit that changed nothing opened %q", again[len(open):])
	}
	if n := openFiles(t, rt); n != 3 {
		t.Errorf("%d documents open, want core.py and two importers", n)
	}
	// A new importer, nearer by name: the next change uses the importers
	// remembered and finds them again in the background; a change after
	// that opens it, and lets the farthest go.
	if err := os.WriteFile(filepath.Join(ws, "a0.py"), []byte("import core\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	texts := []string{"def f(x: int) -> int:\n    return x\n", "def f(x: int, y: int) -> int:\n    return x\n"}
	testenv.Eventually(t, 10*time.Second, "a0.py opened by a change", func() bool {
		if _, err := s.Edit(ctx, "core.py", texts[0]); err != nil {
			t.Fatal(err)
		}
		texts[0], texts[1] = texts[1], texts[0]
		open, _ := opened(t, record)
		return slices.Contains(open, "a0.py")
	})
	testenv.Eventually(t, 10*time.Second, "b.py closed", func() bool {
		_, closed := opened(t, record)
		return cmp.Equal(closed, []string{"b.py"})
	})
	if err := s.Close(ctx, "core.py"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "every file closed once the session closed its own", func() bool {
		_, closed := opened(t, record)
		return len(closed) >= 4
	})
	_, closed := opened(t, record)
	slices.Sort(closed)
	if want := []string{"a.py", "a0.py", "b.py", "core.py"}; !cmp.Equal(closed, want) {
		t.Errorf("closed %q once no session held a document, want %q", closed, want)
	}
}

// TestDiagnosticsOfUnchangedFileOpensNoImporters: a diagnostics call about
// a file nobody changed opens nothing else (the runtime does not watch
// here, so it knows of no change on disk).
func TestDiagnosticsOfUnchangedFileOpensNoImporters(t *testing.T) {
	rt, _, record := importersRuntime(t)
	if _, err := rt.Session("agent").Diagnostics(context.Background(), []string{"core.py"}); err != nil {
		t.Fatal(err)
	}
	if open, _ := opened(t, record); !cmp.Equal(open, []string{"core.py"}) {
		t.Errorf("opened %q, want core.py alone", open)
	}
}
