//go:build unix

package reach_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/reach"
)

// TestWalkSkipsNamedPipes: a named pipe among the sources (pipe.py, a
// go.mod) is not opened: the walk would wait for a writer for ever, and
// with it `agentlsp check`'s shutdown (a tester's FIFO held it to its 2 s
// bound).
func TestWalkSkipsNamedPipes(t *testing.T) {
	for _, tc := range []struct{ fifo, from, importer string }{
		{"pkg/pipe.py", "pkg/lib.py", "pkg/mid.py"},
		{"sub/go.mod", "lib/lib.go", "app/app.go"},
	} {
		ws := layout(t, map[string]string{
			"pyproject.toml":  "",
			"pkg/__init__.py": "",
			"pkg/lib.py":      "def f(): pass\n",
			"pkg/mid.py":      "from pkg.lib import f\n",
			"go.mod":          "module example.com/m\n",
			"lib/lib.go":      "package lib\n",
			"app/app.go":      "package app\n\nimport _ \"example.com/m/lib\"\n",
			"sub/x.go":        "package sub\n",
		})
		if err := syscall.Mkfifo(filepath.Join(ws, filepath.FromSlash(tc.fifo)), 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan reach.Verdict, 1)
		go func() {
			done <- reach.New(ws).From(filepath.Join(ws, filepath.FromSlash(tc.from))).Reaches(filepath.Join(ws, filepath.FromSlash(tc.importer)))
		}()
		select {
		case v := <-done:
			if v != reach.Yes {
				t.Errorf("with a named pipe at %s: %s reaches %s = %v, want yes", tc.fifo, tc.from, tc.importer, v)
			}
		case <-time.After(time.Minute):
			t.Fatalf("the walk blocked on the named pipe %s", tc.fifo) // the goroutine stays: the process fails anyway
		}
	}
}
