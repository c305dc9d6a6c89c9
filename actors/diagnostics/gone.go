package diagnostics

import (
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Files gone from disk. A file deleted, or below a directory deleted, is
// not among the other files of an answer: its diagnostics describe a file
// that no longer exists, and its server may never say it is gone (pyright
// publishes nothing for a file closed because it was deleted). An answer
// named one, fresh, with an error it had before its deletion.

// maxGone bounds the paths remembered; past it they are forgotten (such a
// file may then be reported again, as before it was deleted).
const maxGone = 4096

// goneFiles remembers the paths the watcher saw deleted and not made
// again. Owned by the actor.
type goneFiles struct {
	files map[string]struct{}
	dirs  map[string]struct{}
}

// note records one change on disk.
func (g *goneFiles) note(c messages.FileChange) {
	if g.files == nil {
		g.files, g.dirs = make(map[string]struct{}), make(map[string]struct{})
	}
	if c.Type != messages.FileDeleted {
		delete(g.files, c.Path)
		delete(g.dirs, c.Path) // a directory made again
		return
	}
	if len(g.files)+len(g.dirs) >= maxGone {
		clear(g.files)
		clear(g.dirs)
	}
	if c.Dir {
		g.dirs[c.Path] = struct{}{}
	} else {
		g.files[c.Path] = struct{}{}
	}
}

// has reports whether path was deleted, or lies below a directory that was.
func (g *goneFiles) has(path string) bool {
	if _, ok := g.files[path]; ok {
		return true
	}
	for d := range g.dirs {
		if path != d && paths.Within(d, path) {
			return true
		}
	}
	return false
}
