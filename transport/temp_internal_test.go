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
// not named as privateTemp names a server's directory.
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
		{"agentlsp-demo-6", old, false, true},        // a person's
		{"agentlsp-7-gopls", old, false, true},       // not as privateTemp names them
		{"agentlsp-8-tsserver-x9", old, false, true}, // nor this
		{"agentlsp-9--10", old, false, false},        // a command without a letter to keep
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

// The directories privateTemp makes are those a sweep looks for.
func TestPrivateTempIsASweepsKind(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, command := range []string{"/usr/bin/gopls", "typescript-language-server", "/x/clangd-19", "/x/weird name!.exe"} {
		env, d := privateTemp(command, []string{"A=1"})
		if d == nil {
			t.Fatalf("privateTemp(%q): no directory", command)
		}
		if want := "TMPDIR=" + d.path; !slices.Contains(env, want) || !slices.Contains(env, "A=1") {
			t.Errorf("privateTemp(%q) env %q, want A=1 and %s", command, env, want)
		}
		if name := filepath.Base(d.path); !isServerTemp(name) {
			t.Errorf("privateTemp(%q) made %s, which a sweep does not recognize", command, name)
		}
		d.remove()
		if _, err := os.Stat(d.path); !os.IsNotExist(err) {
			t.Errorf("%s after remove: %v, want it gone", d.path, err)
		}
	}
}
