package router

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
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
//
// The walk reads the project's imports (a stat per source file: 17 ms for
// 5,000 files, bench BenchmarkImporters), and every call waits for it. So
// a file's importers are remembered (importersOf): a later change uses
// the list remembered, holds calls only while it opens those not open,
// and walks again in the background for the next one.

// maxImportersWalk bounds the walk for a file's importers: a call is held
// meanwhile; past it the call goes on without them.
const maxImportersWalk = 5 * time.Second

// maxChangedOnDisk bounds changedOnDisk; when full it is cleared (a call
// about a file changed then opens no importers).
const maxChangedOnDisk = 1024

// maxImportersKept bounds importersOf; when full it is cleared.
const maxImportersKept = 256

// importersFound is the outcome of the walk for a file's importers; a
// refresh comes to the router as a message.
type importersFound struct {
	abs   string
	paths []string
}

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
	changedOnDisk := r.changedOnDisk[abs]
	delete(r.changedOnDisk, abs)
	doc, open := r.docs[abs]
	if !open {
		if doc, err = r.newDocument(abs, m.Create); err != nil {
			return false // the edit says why
		}
	}
	key, limit := importersServer(doc)
	switch {
	case limit == 0:
		return false
	case m.Current && !changedOnDisk && (!open || doc.current(paths.StampOf(abs))):
		return false // nothing changed that the runtime knows of
	case !m.Current && open && doc.text == m.Text:
		return false
	}
	known, ok := r.importersOf[abs]
	if ok {
		r.refreshImporters(ctx, abs, limit)
		if !r.anyClosed(known) {
			return false
		}
	}
	h.prelude = true
	r.b.last++
	r.b.current, r.b.reached, r.b.prelude, r.b.started = r.b.last, true, true, time.Now()
	r.b.held = append([]held{h}, r.b.held...)
	r.b.ops++
	done := r.opDone(ctx)
	opened := func(uris []string) {
		if m.Current || len(uris) == 0 {
			done()
			return
		}
		r.awaitPulled(ctx, key.server, uris, done)
	}
	if ok {
		r.keepImporters(ctx, abs, known, key, limit, opened)
		return true
	}
	r.openImporters(ctx, abs, key, limit, opened)
	return true
}

// maxBaselineWait bounds the wait for the first diagnosis of the importers
// an edit in memory opened.
const maxBaselineWait = 3 * time.Second

// awaitPulled calls done once the server has pulled the importers just
// opened (uris), at most maxBaselineWait: their first diagnosis then
// describes them with the edited file's text before the edit, a baseline
// that tells the edit's new errors from older ones. A diagnostics call
// does not wait: the disk has the change already.
func (r *routerActor) awaitPulled(ctx actor.Context, key messages.ServerKey, uris []string, done func()) {
	e, ok := r.servers[key]
	if !ok {
		done()
		return
	}
	f := ctx.RequestFuture(e.pid, &messages.AwaitPulled{URIs: uris}, maxBaselineWait)
	ctx.ReenterAfter(f, func(any, error) { done() })
}

// anyClosed reports whether one of files is not open.
func (r *routerActor) anyClosed(files []string) bool {
	for _, p := range files {
		if _, open := r.docs[p]; !open {
			return true
		}
	}
	return false
}

// rememberImporters keeps a file's importers for its next change.
func (r *routerActor) rememberImporters(abs string, paths []string) {
	if r.importersOf == nil || len(r.importersOf) >= maxImportersKept {
		r.importersOf = make(map[string][]string)
	}
	r.importersOf[abs] = paths
}

// refreshImporters walks for abs's importers again in the background (one
// walk per file at a time); the router remembers what it finds
// (onImportersFound).
func (r *routerActor) refreshImporters(ctx actor.Context, abs string, limit int) {
	if r.refreshing[abs] {
		return
	}
	if r.refreshing == nil {
		r.refreshing = make(map[string]bool)
	}
	r.refreshing[abs] = true
	ix, send := r.index(), lifecycle.Sender(ctx, r.self)
	// Lives for one walk of a project's sources; joined by the Reaper.
	r.cfg.Reaper.Go(func() {
		send(&importersFound{abs: abs, paths: ix.Importers(abs, limit)})
	})
}

// onImportersFound remembers a refreshed list of importers.
func (r *routerActor) onImportersFound(m *importersFound) {
	delete(r.refreshing, m.abs)
	r.rememberImporters(m.abs, m.paths)
}

// index is the workspace's import index, made when first needed.
func (r *routerActor) index() *reach.Index {
	if r.reach == nil {
		r.reach = reach.New(r.cfg.Workspace)
	}
	return r.reach
}

// importersServer returns the first of doc's servers that keeps importers
// open, and how many; 0 when none does.
func importersServer(doc *document) (keptKey, int) {
	for i, t := range doc.targets {
		if n := doc.defs[i].OpenImporters; n > 0 {
			return keptKey{server: t.ServerKey, kind: keptImporters}, n
		}
	}
	return keptKey{}, 0
}

// openImporters finds the importers of abs in a reaper goroutine and keeps
// those not open, then calls done once each is handed to its server
// actors (or could not be).
func (r *routerActor) openImporters(ctx actor.Context, abs string, key keptKey, limit int, done func(opened []string)) {
	ix := r.index()
	f := actor.NewFuture(ctx.ActorSystem(), maxImportersWalk)
	root := ctx.ActorSystem().Root
	// Lives for one walk of a project's sources; joined by the Reaper.
	r.cfg.Reaper.Go(func() {
		root.Send(f.PID(), &importersFound{abs: abs, paths: ix.Importers(abs, limit)})
	})
	ctx.ReenterAfter(f, func(res any, err error) {
		found, _ := res.(*importersFound)
		if found == nil {
			r.cfg.Logger.Warn("importers not opened: the walk for them took too long", "path", abs, "err", err)
			done(nil)
			return
		}
		r.rememberImporters(abs, found.paths)
		r.keepImporters(ctx, abs, found.paths, key, limit, done)
	})
}

// keepImporters keeps abs's importers files for the keeper, the most
// recent in key's list (those beyond limit, older, are let go), opening
// those not open, and calls done with the URIs of those it opened once
// each is handed to its server actors (or could not be).
func (r *routerActor) keepImporters(ctx actor.Context, abs string, files []string, key keptKey, limit int, done func(opened []string)) {
	var opened []string
	left := 1 // done once every importer is handed on, or could not be
	sent := func() {
		if left--; left == 0 {
			done(opened)
		}
	}
	for _, p := range files {
		if doc, open := r.docs[p]; open {
			r.keepDoc(ctx, p, p, doc, true, key, limit, func() {}) // its server has it
			continue
		}
		left++
		opened = append(opened, paths.URI(p))
		r.cfg.Logger.Debug("opening an importer before a change", "path", p, "of", abs)
		r.keep(ctx, p, key, limit, sent)
	}
	sent()
}
