package actors

import (
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// diskRead is the content of a file read from disk after a change.
type diskRead struct {
	text string
	err  error
}

// maxResyncSize bounds a file re-read from disk after a change.
const maxResyncSize = 16 << 20

// onFilesChanged handles changes on disk seen by the watcher: the root
// cache is dropped when files appear or disappear (a marker may have), the
// changes go to every server actor (each forwards those its server
// registered for), and open documents whose content changed on disk are
// re-synced from disk.
func (r *routerActor) onFilesChanged(ctx actor.Context, m *messages.FilesChanged) {
	for _, c := range m.Changes {
		if c.Type != messages.FileChanged {
			clear(r.roots)
			break
		}
	}
	for _, e := range r.servers {
		ctx.Send(e.pid, m)
	}
	for _, c := range m.Changes {
		if doc, ok := r.docs[c.Path]; ok && c.Type != messages.FileDeleted {
			r.resync(ctx, c.Path, doc)
		}
	}
}

// resync reads an open file from disk in a reaper goroutine and sends its
// text to the file's servers (a no-op for those that have it already).
func (r *routerActor) resync(ctx actor.Context, path string, doc *openDoc) {
	f := actor.NewFuture(ctx.ActorSystem(), time.Minute)
	root := ctx.ActorSystem().Root
	r.cfg.Reaper.Go(func() { root.Send(f.PID(), readText(path)) })
	ctx.ReenterAfter(f, func(res any, err error) {
		read, ok := res.(*diskRead)
		if !ok || read.err != nil || r.docs[path] != doc {
			return // unreadable, or closed meanwhile
		}
		for i, t := range doc.targets {
			e := r.server(ctx, t.ServerKey, doc.defs[i])
			e.sent++
			ctx.Send(e.pid, &messages.OpenDocument{URI: doc.uri, LanguageID: t.LanguageID, Text: read.text})
		}
	})
}

func readText(path string) *diskRead {
	fi, err := os.Stat(path)
	if err != nil {
		return &diskRead{err: err}
	}
	if fi.Size() > maxResyncSize {
		return &diskRead{err: os.ErrInvalid}
	}
	b, err := os.ReadFile(path)
	return &diskRead{text: string(b), err: err}
}
