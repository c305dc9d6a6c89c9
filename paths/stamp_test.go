package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStampOfIsOsStat: StampOf says what os.Stat says, for a file, a link
// to it, a directory, a link to that, a missing file and an empty name.
func TestStampOfIsOsStat(t *testing.T) {
	dir := t.TempDir()
	file, sub := filepath.Join(dir, "a.go"), filepath.Join(dir, "sub")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{file, "link"}, {sub, "dirlink"}, {"missing", "dangling"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	for _, name := range []string{"a.go", "link", "sub", "dirlink", "dangling", "missing", ""} {
		p := filepath.Join(dir, name)
		got, want := StampOf(p), osStampOf(p)
		if got != want || !got.SameFile(want) {
			t.Errorf("StampOf(%s) = %+v, want %+v", name, got, want)
		}
		if exists := name == "a.go" || name == "link"; got.Exists() != exists {
			t.Errorf("StampOf(%s).Exists() = %v, want %v", name, got.Exists(), exists)
		}
	}
}
