package paths_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

func TestInWorkspace(t *testing.T) {
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "pkg", "a.go"), []byte("package pkg\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "s.go"), []byte("package s\n"), 0o644)
	os.Symlink(filepath.Join(outside, "s.go"), filepath.Join(ws, "escape.go"))
	os.Symlink("pkg", filepath.Join(ws, "inner")) // relative link inside
	os.Symlink(ws, filepath.Join(base, "alias"))  // the workspace through a link
	os.Symlink("loop", filepath.Join(ws, "loop")) // a link to itself
	tests := []struct {
		path string
		want string // "" with an error
		kind error
	}{
		{"pkg/a.go", filepath.Join(ws, "pkg", "a.go"), nil},
		{filepath.Join(ws, "pkg", "a.go"), filepath.Join(ws, "pkg", "a.go"), nil},
		{"inner/a.go", filepath.Join(ws, "pkg", "a.go"), nil},
		{"pkg/new/b.go", filepath.Join(ws, "pkg", "new", "b.go"), nil}, // not yet there
		{filepath.Join(base, "alias", "pkg", "a.go"), filepath.Join(ws, "pkg", "a.go"), nil},
		{"../outside/s.go", "", messages.ErrOutsideWorkspace},
		{"escape.go", "", messages.ErrOutsideWorkspace},
		{"loop/x.go", "", messages.ErrFileNotFound},
		{"", "", messages.ErrInvalidPath},
		{strings.Repeat("a", paths.MaxPath+1), "", messages.ErrInvalidPath},
		{"a\x00b", "", messages.ErrInvalidPath},
		// A file:// URI names its path (agents that speak LSP pass one).
		{"file://" + filepath.Join(ws, "pkg", "a.go"), filepath.Join(ws, "pkg", "a.go"), nil},
		{"FILE://" + filepath.Join(ws, "inner", "a.go"), filepath.Join(ws, "pkg", "a.go"), nil},
		{paths.URI(filepath.Join(ws, "pkg", "a b.go")), filepath.Join(ws, "pkg", "a b.go"), nil}, // %20
		{"file://" + filepath.Join(outside, "s.go"), "", messages.ErrOutsideWorkspace},
		{"file://%zz", "", messages.ErrInvalidPath},
		{"file://relative/a.go", "", messages.ErrOutsideWorkspace}, // a host: //relative/a.go
	}
	for _, tt := range tests {
		got, err := paths.InWorkspace(ws, tt.path)
		if tt.kind != nil {
			if !errors.Is(err, tt.kind) {
				t.Errorf("InWorkspace(%.60q) = %q, %v; want %v", tt.path, got, err, tt.kind)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("InWorkspace(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestReadText(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	text, stamp, err := paths.ReadText(write("ok.go", []byte("package x\n")), "ok.go")
	if err != nil || text != "package x\n" || stamp.Size != 10 {
		t.Errorf("ReadText(ok.go) = %q, %+v, %v", text, stamp, err)
	}
	for name, b := range map[string][]byte{"nul.go": {'a', 0}, "latin1.go": {0xe9, '\n'}} {
		if _, _, err := paths.ReadText(write(name, b), name); !errors.Is(err, messages.ErrNotText) {
			t.Errorf("ReadText(%s) = %v, want ErrNotText", name, err)
		}
	}
	// Sizes around the first buffer's and a read's: the text comes back
	// whole, with its stamp.
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 100_000} {
		want := strings.Repeat("é\n", n/3) + strings.Repeat("x", n%3)
		got, stamp, err := paths.ReadText(write("size.go", []byte(want)), "size.go")
		if err != nil || got != want || stamp.Size != int64(len(want)) {
			t.Errorf("ReadText of %d bytes = %d bytes, %+v, %v", len(want), len(got), stamp, err)
		}
	}
	for text, want := range map[string]error{"ok\n": nil, "a\x00b": messages.ErrNotText, "\xe9": messages.ErrNotText} {
		if err := paths.CheckText(text); !errors.Is(err, want) {
			t.Errorf("CheckText(%q) = %v, want %v", text, err, want)
		}
		if err := paths.CheckText([]byte(text)); !errors.Is(err, want) {
			t.Errorf("CheckText([]byte(%q)) = %v, want %v", text, err, want)
		}
	}
	if _, _, err := paths.ReadText(dir, "dir"); !errors.Is(err, messages.ErrIsDirectory) {
		t.Errorf("ReadText(dir) = %v, want ErrIsDirectory", err)
	}
	if _, _, err := paths.ReadText(filepath.Join(dir, "none"), "none"); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("ReadText(none) = %v, want ErrFileNotFound", err)
	}
}

// TestUnwatched: a file below a directory the watcher skips is named with
// that directory; a package of sources with an output's name (Go files in
// internal/build) is watched.
func TestUnwatched(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"internal/build/b.go", "build/x.o", "node_modules/dep/index.d.ts", "src/a.go"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := paths.NewFilter(nil)
	for file, want := range map[string]string{
		"internal/build/b.go":              "",
		"build/x.o":                        "build",
		"node_modules/dep/index.d.ts":      "node_modules",
		"src/a.go":                         "",
		"vendor/example.com/other/o.go":    "vendor",
		"src/.venv/lib/site-packages/x.py": "src/.venv",
	} {
		got := f.Unwatched(ws, filepath.Join(ws, file))
		if want != "" {
			want = filepath.Join(ws, want)
		}
		if got != want {
			t.Errorf("Unwatched(%s) = %q, want %q", file, got, want)
		}
	}
	if got := f.Unwatched(ws, "/elsewhere/node_modules/x.js"); got != "" {
		t.Errorf("a file outside the workspace: %q, want \"\"", got)
	}
}
