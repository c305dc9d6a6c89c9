//go:build unix

package transport

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A sweep removes the servers' temporary directories that killed agentlsp
// processes left, and keeps those in use (locked by a live agentlsp), those
// changed in the last minute (one just made is not locked yet) and anything
// not named as a server's directory.
func TestSweepRemovesOnlyLeftTempDirs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	dirs := []struct {
		name string
		mod  time.Time
		lock bool
		kept bool
	}{
		{"agentlsp-999991-gopls-1", old, false, false},
		{"agentlsp-999992-tsserver-2", old, false, false},
		{"agentlsp-999993-gopls-3", old, true, true},
		{"agentlsp-999994-gopls-4", now.Add(-10 * time.Second), false, true},
		{"other-5", old, false, true},
	}
	var want []string
	for _, d := range dirs {
		path := filepath.Join(dir, d.name)
		if err := os.MkdirAll(filepath.Join(path, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "sub", "left.txt"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, d.mod, d.mod); err != nil {
			t.Fatal(err)
		}
		if d.lock {
			held := lockDir(path, false)
			if held == nil {
				t.Fatalf("lockDir %s: could not lock", path)
			}
			defer held.Close()
		}
		if d.kept {
			want = append(want, d.name)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "agentlsp-file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, "agentlsp-file"), old, old)
	want = append(want, "agentlsp-file")
	slices.Sort(want)

	sweepTemp(dir, now)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	left := []string{}
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("left after the sweep (-want +got):\n%s", diff)
	}
}
