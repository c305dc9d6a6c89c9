package agentlsp

import (
	"context"
	"os"
	"time"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/messages"
)

// maxDocStates bounds the texts the runtime remembers.
const maxDocStates = 10000

// docState is the text the servers have for a file, and the state of the
// file on disk when that text was set. An Edit's text is not on disk:
// navigation must not replace it with the disk's text unless the disk
// changed after the edit.
type docState struct {
	text  string
	stamp fileStamp
}

// fileStamp identifies a version of a file on disk.
type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime()}
}

// remember records the text the servers now have for path.
func (rt *Runtime) remember(path, text string) {
	st := stampOf(path)
	rt.docMu.Lock()
	defer rt.docMu.Unlock()
	if rt.docs == nil {
		rt.docs = make(map[string]*docState)
	}
	if _, ok := rt.docs[path]; !ok && len(rt.docs) >= maxDocStates {
		for k := range rt.docs { // evict one: at worst it is re-read from disk
			delete(rt.docs, k)
			break
		}
	}
	rt.docs[path] = &docState{text: text, stamp: st}
}

// known returns the text the servers have for path if the disk has not
// changed since it was set.
func (rt *Runtime) known(path string) (string, bool) {
	rt.docMu.Lock()
	d, ok := rt.docs[path]
	rt.docMu.Unlock()
	if !ok || stampOf(path) != d.stamp {
		return "", false
	}
	return d.text, true
}

// current makes sure this session's servers have the file's current text
// and returns its absolute path, URI and text: the text last edited (or
// synced), unless the file changed on disk since, in which case the disk's
// text is read and synced.
func (s *Session) current(ctx context.Context, path string) (abs, uri, text string, err error) {
	abs, err = actors.CheckFile(s.rt.workspace, path)
	if err != nil {
		return "", "", "", err
	}
	text, ok := s.rt.known(abs)
	if ok && s.holds(abs) {
		// The servers have this text and this session holds the file open:
		// nothing to send.
		return abs, actors.PathToURI(abs), text, nil
	}
	if !ok {
		if text, err = ReadText(s.rt.workspace, abs); err != nil {
			return "", "", "", err
		}
	}
	synced, err := s.sync(ctx, abs, messages.SyncChange, text)
	if err != nil {
		return "", "", "", asGiven(err, path)
	}
	s.rt.remember(abs, text)
	return abs, synced.URI, text, nil
}

// holds reports whether this session holds path open.
func (s *Session) holds(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened[path]
}
