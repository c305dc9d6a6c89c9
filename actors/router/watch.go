package router

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// diskRead is a file read from disk in a reaper goroutine.
type diskRead struct {
	text  string
	stamp paths.Stamp
	err   error
}

// readDisk reads abs in a reaper goroutine and calls then on the actor
// with what it read.
func (r *routerActor) readDisk(ctx actor.Context, abs, given string, then func(*diskRead)) {
	f := actor.NewFuture(ctx.ActorSystem(), time.Minute)
	root := ctx.ActorSystem().Root
	r.cfg.Reaper.Go(func() {
		text, stamp, err := paths.ReadText(abs, given)
		root.Send(f.PID(), &diskRead{text: text, stamp: stamp, err: err})
	})
	ctx.ReenterAfter(f, func(res any, err error) {
		read, ok := res.(*diskRead)
		if !ok {
			read = &diskRead{err: err}
		}
		then(read)
	})
}

// onFilesChanged handles changes on disk seen by the watcher: the root
// cache is dropped when files appear or disappear (a marker may have), the
// changes go to every server actor (each forwards those its server
// registered for), open documents whose content changed on disk are
// re-synced from disk, and open documents deleted on disk are closed.
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
		doc, ok := r.docs[c.Path]
		if !ok {
			continue
		}
		stamp := paths.StampOf(c.Path)
		switch {
		case !stamp.Exists() && doc.stamp.Exists():
			r.cfg.Logger.Debug("open document deleted on disk; closing it", "path", c.Path)
			r.closeOnServers(ctx, nil, doc)
		case stamp.Exists() && !doc.current(stamp):
			r.resync(ctx, c.Path, doc)
		}
	}
}

// resync reads an open file from disk and sends its text to the file's
// servers (a no-op for those that have it already), unless the document
// changed meanwhile.
func (r *routerActor) resync(ctx actor.Context, path string, doc *document) {
	gen := doc.gen
	r.readDisk(ctx, path, path, func(read *diskRead) {
		if read.err != nil || r.docs[path] != doc || doc.gen != gen {
			return // unreadable, closed or changed meanwhile
		}
		doc.setText(read.text, read.stamp, true)
		r.sendText(ctx, nil, doc, false)
	})
}
