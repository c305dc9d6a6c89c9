package reach_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentlsp/agentlsp/reach"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

func layout(t *testing.T, files map[string]string) string {
	ws := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func TestGo(t *testing.T) {
	ws := layout(t, map[string]string{
		"go.mod":      "module example.com/m\n",
		"a/a.go":      "package a\n",
		"a/a2.go":     "package a\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n",
		"c/c.go":      "package c\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/b\"\n)\n",
		"d/d.go":      "package d\n\nimport \"example.com/m/e\"\n",
		"e/e.go":      "package e\n",
		"x/py.py":     "import os\n",
		"vendor/v.go": "package v\n\nimport \"example.com/m/a\"\n",
	})
	r := reach.New(ws).From(filepath.Join(ws, "a", "a.go"))
	tests := map[string]reach.Verdict{
		"a/a2.go": reach.Yes, // the same package
		"b/b.go":  reach.Yes, // imports a
		"c/c.go":  reach.Yes, // imports b, which imports a
		"d/d.go":  reach.No,
		"e/e.go":  reach.No,
		"x/py.py": reach.No, // another language
		"x/y.txt": reach.Unknown,
	}
	for rel, want := range tests {
		if got := r.Reaches(filepath.Join(ws, filepath.FromSlash(rel))); got != want {
			t.Errorf("a/a.go reaches %s = %v, want %v", rel, got, want)
		}
	}
}

func TestPython(t *testing.T) {
	ws := layout(t, map[string]string{
		"pyproject.toml":  "",
		"pkg/__init__.py": "",
		"pkg/lib.py":      "def f(): pass\n",
		"pkg/mid.py":      "from pkg.lib import f\n",
		"pkg/top.py":      "from . import mid\nimport os, pkg.mid\n",
		"pkg/alone.py":    "import json\n",
	})
	r := reach.New(ws).From(filepath.Join(ws, "pkg", "lib.py"))
	for rel, want := range map[string]reach.Verdict{"pkg/mid.py": reach.Yes, "pkg/top.py": reach.Yes, "pkg/alone.py": reach.No} {
		if got := r.Reaches(filepath.Join(ws, filepath.FromSlash(rel))); got != want {
			t.Errorf("lib.py reaches %s = %v, want %v", rel, got, want)
		}
	}
}

func TestTypeScript(t *testing.T) {
	ws := layout(t, map[string]string{
		"tsconfig.json":   "{}",
		"src/util.ts":     "export const x = 1;\n",
		"src/main.ts":     "import { x } from './util';\n",
		"src/app/page.ts": "import '../main';\n",
		"src/other.ts":    "export const y = 2;\n",
	})
	r := reach.New(ws).From(filepath.Join(ws, "src", "util.ts"))
	for rel, want := range map[string]reach.Verdict{"src/main.ts": reach.Yes, "src/app/page.ts": reach.Yes, "src/other.ts": reach.No} {
		if got := r.Reaches(filepath.Join(ws, filepath.FromSlash(rel))); got != want {
			t.Errorf("util.ts reaches %s = %v, want %v", rel, got, want)
		}
	}
}

// TestImporters: the files a change reaches, nearest first, then by path,
// at most the limit; none for Go (its server diagnoses closed files).
func TestImporters(t *testing.T) {
	ws := layout(t, map[string]string{
		"pyproject.toml": "",
		"core.py":        "def f(): pass\n",
		"b_app.py":       "from core import f\n",
		"a_app.py":       "import core\n",
		"top.py":         "import a_app\n",
		"alone.py":       "import json\n",
		"tsconfig.json":  "{}",
		"src/util.ts":    "export const x = 1;\n",
		"src/main.ts":    "import { x } from './util';\n",
		"src/page.ts":    "import './main';\n",
		"go.mod":         "module example.com/m\n",
		"g/g.go":         "package g\n",
		"h/h.go":         "package h\n\nimport \"example.com/m/g\"\n",
	})
	ix := reach.New(ws)
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for limit, want := range map[int][]string{
		0: nil,
		1: {"a_app.py"},
		2: {"a_app.py", "b_app.py"},
		9: {"a_app.py", "b_app.py", "top.py"},
	} {
		if got := rel(ix.Importers(filepath.Join(ws, "core.py"), limit)); !slices.Equal(got, want) {
			t.Errorf("core.py's importers, at most %d: %q, want %q", limit, got, want)
		}
	}
	if got := rel(ix.Importers(filepath.Join(ws, "src", "util.ts"), 5)); !slices.Equal(got, []string{"src/main.ts", "src/page.ts"}) {
		t.Errorf("util.ts's importers: %q", got)
	}
	if got := ix.Importers(filepath.Join(ws, "g", "g.go"), 5); got != nil {
		t.Errorf("g.go's importers: %q, want none (by package)", got)
	}
	if got := ix.Importers(filepath.Join(ws, "notes.txt"), 5); got != nil {
		t.Errorf("notes.txt's importers: %q, want none", got)
	}
}

// TestIndexSeesGraphChanges: what an index derived from a project's
// imports is computed again when a file's imports change, or files come
// and go.
func TestIndexSeesGraphChanges(t *testing.T) {
	ws := layout(t, map[string]string{
		"pyproject.toml": "",
		"core.py":        "def f(): pass\n",
		"a.py":           "import core\n",
	})
	ix := reach.New(ws)
	core := filepath.Join(ws, "core.py")
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		change func()
		want   []string
	}{
		{func() {}, []string{"a.py"}},
		{func() { write("b.py", "from core import f\n") }, []string{"a.py", "b.py"}},
		{func() { write("a.py", "import json # no longer core\n") }, []string{"b.py"}},
		{func() { os.Remove(filepath.Join(ws, "b.py")) }, nil},
	}
	for i, s := range steps {
		s.change()
		var got []string
		for _, p := range ix.Importers(core, 5) {
			got = append(got, filepath.Base(p))
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("step %d: importers %q, want %q", i, got, s.want)
		}
		for _, name := range []string{"a.py", "b.py"} {
			want := reach.No
			if slices.Contains(s.want, name) {
				want = reach.Yes
			}
			if v := ix.From(core).Reaches(filepath.Join(ws, name)); v != want {
				t.Errorf("step %d: core.py reaches %s = %v, want %v", i, name, v, want)
			}
		}
	}
}
