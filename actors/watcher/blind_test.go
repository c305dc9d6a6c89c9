package watcher_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentlsp/agentlsp/actors/watcher"
)

// TestWatcherOnABlindFileSystem: on a file system that others change
// without events here (NFS, 9p, ...), the watcher says so once, in its
// status and in a warning, and marks every batch Partial, so that the
// router compares the open files with the disk; on another it does not.
func TestWatcherOnABlindFileSystem(t *testing.T) {
	local := newWatchProbe(t, []string{"a.txt"}, func(c *watcher.Config) {
		c.FileSystem = func(string) string { return "" }
	})
	local.check(os.WriteFile(local.path("a.txt"), []byte("local"), 0o644))
	if b, _ := local.nextBatch(); b.Partial || local.watchStatus().Blind != "" || local.warns.count() != 0 {
		t.Fatalf("on a local disk: batch partial %v, status blind %q, %d warnings", b.Partial, local.watchStatus().Blind, local.warns.count())
	}
	p := newWatchProbe(t, []string{"a.txt"}, func(c *watcher.Config) {
		c.FileSystem = func(string) string { return "nfs" }
	})
	if st := p.watchStatus(); st.Blind != "nfs" || p.warns.count() != 1 {
		t.Errorf("status blind %q, %d warnings; want nfs and one", st.Blind, p.warns.count())
	}
	for i := range 3 {
		p.check(os.WriteFile(p.path("a.txt"), []byte(fmt.Sprint("write ", i)), 0o644))
		if b, changes := p.nextBatch(); !b.Partial {
			t.Errorf("batch %v on nfs: not partial", changes)
		}
	}
}
