package router

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/reach"
)

// Importers. pyright and tsserver diagnose the files open on them only: a
// change to a module that breaks a file importing it is reported only if
// that file is open. Before an edit or a diagnostics call brings a change
// of its file to such a server (its definition sets OpenImporters), the
// router opens the files that import it (package reach, the nearest
// first), for the keeper, in a kept list of their own (at most
// OpenImporters per server, the least recently opened closed first). The
// call waits as for a barrier: it, and every call after it, is held in
// order until the importers' texts are handed to the server actors. So the
// server has them open when the change comes, pulls them again with it,
// and the call's answer waits for those pulls (the server actor's
// pullAfterChange).
//
// A diagnostics call brings a change when the watcher saw its file change
// since a call last named it (changedOnDisk), or its text is not the
// disk's; an edit, when its text is not the document's.

// maxImportersWalk bounds the walk for a file's importers: a call is held
// meanwhile; past it the call goes on without them.
const maxImportersWalk = 5 * time.Second

// maxChangedOnDisk bounds changedOnDisk; when full it is cleared (a call
// about a file changed then opens no importers).
const maxChangedOnDisk = 1024

// importersFound is the outcome of the walk for a file's importers.
type importersFound struct{ paths []string }

// noteChangedOnDisk records the files the watcher saw written or made.
func (r *routerActor) noteChangedOnDisk(m *messages.FilesChanged) {
	for _, c := range m.Changes {
		if c.Type == messages.FileDeleted || c.Dir {
			continue
		}
		if r.changedOnDisk == nil || len(r.changedOnDisk) >= maxChangedOnDisk {
			r.changedOnDisk = make(map[string]bool)
		}
		r.changedOnDisk[c.Path] = true
	}
}

// openImportersFirst holds an edit, or a diagnostics call, that brings a
// change of its file to a server that keeps importers open, and opens them
// (openImporters); it reports false when there is nothing to open and the
// call goes on now.
func (r *routerActor) openImportersFirst(ctx actor.Context, h held) bool {
	m, ok := h.msg.(*messages.Edit)
	if !ok {
		return false
	}
	abs, err := r.inWorkspace(m.Path)
	if err != nil {
		return false // the edit says why
	}
	doc := r.docs[abs]
	changed := r.changedOnDisk[abs]
	delete(r.changedOnDisk, abs)
	switch {
	case m.Current:
		changed = changed || doc != nil && !doc.current(paths.StampOf(abs))
	default:
		changed = doc == nil || doc.text != m.Text
	}
	if !changed {
		return false
	}
	if doc == nil {
		if doc, err = r.newDocument(abs, m.Create); err != nil {
			return false
		}
	}
	key, limit := importersServer(doc)
	if limit == 0 {
		return false
	}
	h.prelude = true
	r.b.last++
	r.b.current, r.b.reached, r.b.prelude, r.b.started = r.b.last, true, true, time.Now()
	r.b.held = append([]held{h}, r.b.held...)
	r.b.ops++
	r.openImporters(ctx, abs, key, limit, r.opDone(ctx))
	return true
}

// importersServer returns the first of doc's servers that keeps importers
// open, and how many; 0 when none does.
func importersServer(doc *document) (keptKey, int) {
	for i, t := range doc.targets {
		if n := doc.defs[i].OpenImporters; n > 0 {
			return keptKey{server: t.ServerKey, importers: true}, n
		}
	}
	return keptKey{}, 0
}

// openImporters finds the importers of abs in a reaper goroutine and keeps
// those not open, then calls done once each is handed to its server
// actors (or could not be).
func (r *routerActor) openImporters(ctx actor.Context, abs string, key keptKey, limit int, done func()) {
	if r.reach == nil {
		r.reach = reach.New(r.cfg.Workspace)
	}
	ix := r.reach
	f := actor.NewFuture(ctx.ActorSystem(), maxImportersWalk)
	root := ctx.ActorSystem().Root
	// Lives for one walk of a project's sources; joined by the Reaper.
	r.cfg.Reaper.Go(func() {
		root.Send(f.PID(), &importersFound{paths: ix.From(abs).Importers(limit)})
	})
	ctx.ReenterAfter(f, func(res any, err error) {
		found, _ := res.(*importersFound)
		if found == nil {
			r.cfg.Logger.Warn("importers not opened: the walk for them took too long", "path", abs, "err", err)
			done()
			return
		}
		left := 1 // done once every importer is handed on, or could not be
		sent := func() {
			if left--; left == 0 {
				done()
			}
		}
		for _, p := range found.paths {
			if _, open := r.docs[p]; open {
				continue // its server has it
			}
			left++
			r.cfg.Logger.Debug("opening an importer before a change", "path", p, "of", abs)
			r.keep(ctx, p, key, limit, sent)
		}
		sent()
	})
}
