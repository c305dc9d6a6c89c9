package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentlsp/agentlsp/reach"
)

// The walk for a changed file's importers (router/importers.go): every
// edit or diagnostics call that brings a change to a server that keeps
// importers open (pyright, tsserver) is held while it runs. The index
// caches each file's imports by its stamp, so a walk after the first
// costs a stat per source file of the project and a parse of the files
// that changed. Compare sizes: BenchmarkImporters/files=500 and =5000.

// pyProject writes n Python modules in packages of 50, each importing the
// one before it and every tenth importing m0, and returns the root.
func pyProject(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		dir := filepath.Join(root, "p"+strconv.Itoa(i/50))
		if i%50 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "__init__.py"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		text := "import os\n"
		if i > 0 {
			text += fmt.Sprintf("from p%d.m%d import f%d\n", (i-1)/50, i-1, i-1)
		}
		if i%10 == 9 {
			text += "import p0.m0\n"
		}
		text += fmt.Sprintf("\ndef f%d(x: int) -> int:\n    return x\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.py", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkImporters is one warm walk for the importers of a module that
// many files import, as each change after the first makes it.
func BenchmarkImporters(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			root := pyProject(b, n)
			ix := reach.New(root)
			changed := filepath.Join(root, "p0", "m0.py")
			if got := ix.Importers(changed, 5); len(got) != 5 {
				b.Fatalf("importers = %q, want 5", got)
			}
			b.ReportAllocs()
			for b.Loop() {
				ix.Importers(changed, 5)
			}
		})
	}
}

// BenchmarkReachFrom is the diagnostics actor's reach job for a change to
// that module (every file of the project reaches it or not), warm.
func BenchmarkReachFrom(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			root := pyProject(b, n)
			ix := reach.New(root)
			changed := filepath.Join(root, "p0", "m0.py")
			if ix.From(changed).Reaches(filepath.Join(root, "p1", "m59.py")) != reach.Yes {
				b.Fatal("m59 does not reach m0")
			}
			b.ReportAllocs()
			for b.Loop() {
				ix.From(changed)
			}
		})
	}
}
