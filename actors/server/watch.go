package server

import (
	"path/filepath"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/lspglob"
	"github.com/agentlsp/agentlsp/messages"
)

// didChangeWatchedFiles is the method servers register to hear of changes
// on disk.
const didChangeWatchedFiles = "workspace/didChangeWatchedFiles"

// onFilesChanged forwards to the server the changes that match the file
// watchers it registered (glob patterns and kinds honoured). Sent, they
// count as a change of the server's view (the document store's Seq).
func (a *serverActor) onFilesChanged(ctx actor.Context, m *messages.FilesChanged) {
	if !a.running() {
		return
	}
	var changes []map[string]any
	for _, c := range m.Changes {
		if a.watching(c) {
			changes = append(changes, map[string]any{"uri": c.URI, "type": int(c.Type)})
		}
	}
	if len(changes) > 0 {
		a.st.docs.NoteChange()
		a.notify(ctx, didChangeWatchedFiles, map[string]any{"changes": changes})
	}
}

func (a *serverActor) watching(c messages.FileChange) bool {
	for id, r := range a.regs {
		if r.Method != didChangeWatchedFiles {
			continue
		}
		m, ok := a.matchers[id]
		if !ok {
			var err error
			if m, err = lspglob.NewWatchMatcher(r.RegisterOptions); err != nil {
				a.cfg.Logger.Warn("bad file watcher registration", "server", a.cfg.Server.ID, "err", err)
			}
			a.matchers[id] = m
		}
		if m != nil && m.Match(filepath.ToSlash(c.Path), c.Type) {
			return true
		}
	}
	return false
}
