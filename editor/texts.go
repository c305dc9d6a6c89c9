package editor

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/textpos"
)

// Texts caches the files views read, by absolute path, each checked
// against the disk's stamp (one stat) before it is used: a file read for
// one answer is not read again for the next unless it changed. Safe for
// concurrent use; a nil *Texts keeps nothing.
type Texts struct {
	files *lru.Cache[string, cached]
}

type cached struct {
	lines *textpos.Lines // the text, its lines indexed
	stamp paths.Stamp
}

// Bounds of the cache: files kept, and the largest kept.
const (
	maxCachedFiles = 256
	maxCachedSize  = 1 << 20
)

// NewTexts returns an empty cache.
func NewTexts() *Texts {
	c, _ := lru.New[string, cached](maxCachedFiles) // fails only for a size < 1
	return &Texts{files: c}
}

// get returns the text kept for path if its file has not changed since.
func (t *Texts) get(path string) (*textpos.Lines, bool) {
	if t == nil || path == "" {
		return nil, false
	}
	c, ok := t.files.Get(path)
	if !ok || !c.stamp.SameFile(paths.StampOf(path)) {
		return nil, false
	}
	return c.lines, true
}

// put indexes the text of path, read when the file had stamp, and keeps it.
func (t *Texts) put(path, text string, stamp paths.Stamp) *textpos.Lines {
	lines := textpos.NewLines(text)
	if t != nil && path != "" && len(text) <= maxCachedSize {
		t.files.Add(path, cached{lines: lines, stamp: stamp})
	}
	return lines
}
