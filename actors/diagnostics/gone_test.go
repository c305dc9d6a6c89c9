package diagnostics

import (
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// TestGoneFiles: deleted files, and files below a deleted directory, are
// gone until made again; a directory made again brings what is below it
// back.
func TestGoneFiles(t *testing.T) {
	var g goneFiles
	change := func(path string, typ messages.FileChangeType, dir bool) {
		g.note(messages.FileChange{Path: path, Type: typ, Dir: dir})
	}
	change("/w/a.py", messages.FileDeleted, false)
	change("/w/pkg", messages.FileDeleted, true)
	for path, want := range map[string]bool{"/w/a.py": true, "/w/pkg/b.py": true, "/w/pkg/sub/c.py": true,
		"/w/pkgx/d.py": false, "/w/b.py": false, "/w/pkg": false} {
		if got := g.has(path); got != want {
			t.Errorf("after the deletions: has(%s) = %v, want %v", path, got, want)
		}
	}
	change("/w/a.py", messages.FileCreated, false)
	change("/w/pkg", messages.FileCreated, false)
	if g.has("/w/a.py") || g.has("/w/pkg/b.py") {
		t.Error("a file or directory made again is still gone")
	}
	for i := range maxGone + 1 {
		change("/w/many/"+string(rune('a'+i%26))+string(rune(i)), messages.FileDeleted, false)
	}
	if n := len(g.files) + len(g.dirs); n > maxGone {
		t.Errorf("%d paths remembered, want at most %d", n, maxGone)
	}
}
