package router

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// diskRead is a file read from disk in a reaper goroutine.
type diskRead struct {
	text  string
	stamp paths.Stamp
	lease paths.Lease // whether a writer had the file open during the read
	err   error
}

// readHook, set by tests only (export_test.go), runs in the reading
// goroutine before each read, and what it returns after it.
var readHook func(abs string) (after func())

// readFile reads abs in a reaper goroutine and calls then on the actor
// with what it read (readDisk: only once the read is known not to have met
// a write).
func (r *routerActor) readFile(ctx actor.Context, abs, given string, then func(*diskRead)) {
	f := actor.NewFuture(ctx.ActorSystem(), time.Minute)
	root := ctx.ActorSystem().Root
	hook := readHook
	r.cfg.Reaper.Go(func() {
		var after func()
		if hook != nil {
			after = hook(abs)
		}
		text, stamp, lease, err := paths.ReadTextLeased(abs, given)
		if after != nil {
			after()
		}
		root.Send(f.PID(), &diskRead{text: text, stamp: stamp, lease: lease, err: err})
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
// caches are dropped when files appear or disappear (a marker may have),
// the changes go to every server actor (each forwards those its server
// registered for), open documents whose content changed on disk are
// re-synced from disk, and open documents deleted on disk (or below a
// directory deleted, renamed or moved away) are closed. When
// the watcher may have missed changes, every open document is compared
// with the disk. Then the barriers the batch completes are released once
// that work is done.
func (r *routerActor) onFilesChanged(ctx actor.Context, m *messages.FilesChanged) {
	r.b.seen = max(r.b.seen, m.Seq)
	r.noteChangedOnDisk(m)
	r.noteNamed(ctx, m)
	for _, c := range m.Changes {
		if c.Type != messages.FileChanged {
			clear(r.roots)
			r.rootsGen++
			r.implied = nil
			break
		}
	}
	if m.Moved || m.Partial {
		clear(r.resolved) // a write to a file leads nowhere new
	}
	if len(m.Changes) > 0 {
		for _, e := range r.servers {
			ctx.Send(e.pid, m)
		}
		if r.cfg.Diagnostics != nil {
			ctx.Send(r.cfg.Diagnostics, m) // it tells whose edit broke what
		}
	}
	if m.Partial {
		r.checkStamps(ctx)
	} else {
		var closed []string // changed, open nowhere
		for _, c := range m.Changes {
			if doc, ok := r.docs[c.Path]; ok {
				r.diskChanged(ctx, c.Path, doc, paths.StampOf(c.Path), true)
			} else if c.Type != messages.FileDeleted && !c.Dir {
				closed = append(closed, c.Path)
			}
			if c.Dir && c.Type == messages.FileDeleted { // the documents below it are gone too, unreported one by one
				for p, doc := range r.docs {
					if p != c.Path && paths.Within(c.Path, p) {
						r.diskChanged(ctx, p, doc, paths.StampOf(p), true)
					}
				}
			}
		}
		r.openChanged(ctx, closed)
	}
	r.checkReached(ctx, m.Barriers, m.Held)
	r.barrierReached(ctx, m.Barriers)
}

// resync reads an open file from disk and hands its text to the file's
// servers (a no-op for those that have it already), unless the document
// changed meanwhile; handed runs once the text went to the server actors
// (or nothing was sent). A server's failure is logged: nobody else asked.
func (r *routerActor) resync(ctx actor.Context, path string, doc *document, handed func()) {
	gen := doc.gen
	r.readDisk(ctx, path, path, func(read *diskRead) {
		defer handed()
		if read.err != nil || r.docs[path] != doc || doc.gen != gen {
			return // unreadable, closed or changed meanwhile
		}
		doc.setText(read.text, read.stamp, true)
		r.sendText(ctx, doc, false, func(fs *messages.FileSynced) { r.logSyncErrors("re-sync from disk", fs) })
	})
}

// writeDisk writes text to abs in a reaper goroutine and calls then on the
// actor with the file's new stamp.
func (r *routerActor) writeDisk(ctx actor.Context, abs, text string, then func(paths.Stamp, error)) {
	f := actor.NewFuture(ctx.ActorSystem(), time.Minute)
	root := ctx.ActorSystem().Root
	r.cfg.Reaper.Go(func() {
		err := os.MkdirAll(filepath.Dir(abs), 0o755)
		if err == nil {
			err = os.WriteFile(abs, []byte(text), 0o644)
		}
		stamp := paths.StampOf(abs)
		root.Send(f.PID(), &diskWritten{stamp: stamp, err: err})
	})
	ctx.ReenterAfter(f, func(res any, err error) {
		w, ok := res.(*diskWritten)
		if !ok {
			w = &diskWritten{err: err}
		}
		then(w.stamp, w.err)
	})
}

// diskWritten is the outcome of writeDisk.
type diskWritten struct {
	stamp paths.Stamp
	err   error
}

// openChanged opens files that changed on disk, and that no one has
// open, on the servers that read such a file in a loader of their own
// (config.Server.OpenChanged), kept among their changed files: of a batch
// naming more than a server keeps, the last ones (the others would be
// closed at once); the calls the change holds back wait until their texts
// are handed to the server actors. Each of those servers got the change
// (didChangeWatchedFiles) first, in order.
func (r *routerActor) openChanged(ctx actor.Context, changed []string) {
	if r.cfg.Registry == nil || len(changed) == 0 {
		return
	}
	var opened map[keptKey]int // per server, in this batch
	for _, abs := range slices.Backward(changed) {
		if _, open := r.docs[abs]; open {
			continue // named twice in the batch
		}
		if !slices.ContainsFunc(r.cfg.Registry.Match(abs), func(s *config.Server) bool { return s.OpenChanged > 0 }) {
			continue // routing it would cost a walk of its path for nothing
		}
		doc, err := r.newDocument(abs, false)
		if err != nil {
			continue // not a file a server serves, or not in the workspace
		}
		for i, t := range doc.targets {
			n := doc.defs[i].OpenChanged
			key := keptKey{server: t.ServerKey, kind: keptChanged}
			if n == 0 || opened[key] >= n {
				continue
			}
			if opened == nil {
				opened = make(map[keptKey]int)
			}
			opened[key]++
			r.b.ops++
			r.keepDoc(ctx, abs, abs, doc, false, key, n, r.opDone(ctx))
			break
		}
	}
}
