package router

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/watcher"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Barriers. Before the router answers a call that reads or changes what
// servers know (a sync, a request), every change on disk made before the
// call must have reached the servers: didChangeWatchedFiles sent by the
// globs they registered, open documents re-synced from disk or closed when
// deleted. The router asks its watcher for a barrier (WatchBarrier) and
// holds the call, and every call after it, in arrival order, until the
// watcher's batch naming the barrier has been handled and the disk work it
// started is done. Calls that arrive meanwhile wait for the next barrier,
// so one barrier serves every call that was waiting when it was asked.
// Most calls need no barrier: when the watcher's probe says nothing is on
// its way (the kernel's queue is empty and every batch before reached the
// router; see watcher.Probe) and no disk work is in flight, a call goes at
// once. Without a watcher, or when the watcher says it may have missed
// changes, the router compares the disk stamps of the open documents
// instead.

// maxBarrierWait bounds a barrier: a watcher that never answers (stopped,
// restarted) does not hold calls forever; the open documents' stamps are
// compared instead.
const maxBarrierWait = 5 * time.Second

// held is a client message waiting for a barrier, with its sender.
type held struct {
	msg    any
	sender *actor.PID
	// prelude: the importers of the call's file were opened for it
	// (importers.go); it goes on now.
	prelude bool
}

// barriers is the router's barrier state.
type barriers struct {
	last    uint64 // the last barrier id given
	current uint64 // the barrier in flight, 0 when none
	reached bool   // the watcher's batch for current was handled
	timer   uint64
	held    []held // messages waiting for current
	// prelude: current is no watcher's barrier but the opening of a
	// call's importers (importers.go), which holds the calls the same way.
	prelude bool
	next    []held // messages that came after current was asked
	ops     int    // disk work in flight: re-syncs and closes after changes
	started time.Time
	probe   *watcher.Probe // nil without a watcher
	seen    uint64         // the last FilesChanged handled (its Seq)
	skipped uint64         // calls that needed no barrier
	// Cost: barriers completed and the time they took, for status.
	done            uint64
	spent, reaching time.Duration
}

// barrierTimeout fires when a barrier took too long.
type barrierTimeout struct{ id uint64 }

// needsBarrier reports whether a client message reads or changes what the
// servers know of files.
func needsBarrier(msg any) bool {
	switch m := msg.(type) {
	case *messages.SyncDocument:
		return m.Action == messages.SyncCurrent || m.Action == messages.SyncChange
	case *messages.FileRequest, *messages.WorkspaceRequest, *messages.Edit:
		return true
	}
	return false
}

// admit handles a client message now, or holds it for a barrier: calls
// that need one, and any call behind a held one (order is kept).
func (r *routerActor) admit(ctx actor.Context, msg any) {
	h := held{msg: msg, sender: ctx.Sender()}
	switch {
	case r.b.current != 0:
		r.b.next = append(r.b.next, h)
	case needsBarrier(msg) && r.b.ops == 0 && r.b.probe.Quiet(r.b.seen):
		r.b.skipped++
		r.dispatch(ctx, h)
	case needsBarrier(msg):
		r.b.held = append(r.b.held, h)
		r.startBarrier(ctx)
	default:
		r.dispatch(ctx, h)
	}
}

// startBarrier asks the watcher for a barrier, or checks the open
// documents' stamps when there is no watcher.
func (r *routerActor) startBarrier(ctx actor.Context) {
	r.b.last++
	r.b.current, r.b.reached, r.b.started = r.b.last, false, time.Now()
	if r.watcher == nil {
		r.checkStamps(ctx)
		r.b.reached = true
		r.finishBarrier(ctx)
		return
	}
	ctx.Send(r.watcher, &messages.WatchBarrier{ID: r.b.current})
	r.b.timer = r.timers.After(maxBarrierWait, &barrierTimeout{id: r.b.current})
}

// onBarrierTimeout: the watcher did not answer in time; the stamps of the
// open documents stand in.
func (r *routerActor) onBarrierTimeout(ctx actor.Context, m *barrierTimeout) {
	if m.id != r.b.current || r.b.reached {
		return
	}
	r.cfg.Logger.Warn("file watcher barrier timed out; comparing the open documents with the disk", "after", maxBarrierWait)
	r.checkStamps(ctx)
	r.b.reached = true
	r.finishBarrier(ctx)
}

// barrierReached notes a watcher batch that completes barriers.
func (r *routerActor) barrierReached(ctx actor.Context, ids []uint64) {
	for _, id := range ids {
		if id == r.b.current {
			r.b.reached = true
			r.b.reaching += time.Since(r.b.started)
			r.timers.Cancel(r.b.timer)
		}
	}
	r.finishBarrier(ctx)
}

// finishBarrier releases the held calls once the barrier was reached and
// its disk work is done, then starts the next barrier if calls wait for
// one.
func (r *routerActor) finishBarrier(ctx actor.Context) {
	if r.b.current == 0 || !r.b.reached || r.b.ops > 0 {
		return
	}
	if !r.b.prelude {
		r.b.done++
		r.b.spent += time.Since(r.b.started)
	}
	ready := r.b.held
	r.b.current, r.b.held, r.b.prelude = 0, nil, false
	for i, h := range ready {
		r.dispatch(ctx, h)
		if r.b.current != 0 { // it opens importers first: the rest wait for that
			r.b.held = append(r.b.held, ready[i+1:]...)
			return
		}
	}
	next := r.b.next
	r.b.next = nil
	for i, h := range next {
		if needsBarrier(h.msg) {
			r.b.held = append(r.b.held, next[i:]...)
			r.startBarrier(ctx)
			return
		}
		r.dispatch(ctx, h) // no edit: it needs a barrier
	}
}

// checkStamps re-syncs the open documents whose file changed on disk and
// closes those deleted: the barrier of a router without a (complete)
// watcher.
func (r *routerActor) checkStamps(ctx actor.Context) {
	for path, doc := range r.docs {
		r.diskChanged(ctx, path, doc, paths.StampOf(path), false)
	}
}

// diskChanged brings a document in step with the disk (stamp): closed
// when its file was deleted, re-synced when its content changed after the
// text the servers have was set. seen says the watcher saw the file
// change: a document read from disk is then read again even when size and
// time look the same (a rewrite within the file system's time
// resolution); re-sending the same text changes nothing. Reading the file
// counts against the barrier; once the text (or the close) is handed to
// the server actors, the calls held behind it may go: each server actor
// takes its messages in the order the router sent them, so a call
// released then reaches a server after the text, without waiting for the
// server actors to confirm it.
func (r *routerActor) diskChanged(ctx actor.Context, path string, doc *document, stamp paths.Stamp, seen bool) {
	switch {
	case !stamp.Exists() && doc.stamp.Exists():
		r.cfg.Logger.Debug("open document deleted on disk; closing it", "path", path)
		r.tellUnseen(ctx, seen, path, messages.FileDeleted)
		r.closeOnServers(ctx, doc, func(fs *messages.FileSynced) { r.logSyncErrors("close of a deleted file", fs) })
	case stamp.Exists() && (!doc.current(stamp) || seen && doc.fromDisk):
		if !doc.current(stamp) {
			r.tellUnseen(ctx, seen, path, messages.FileChanged)
		}
		r.b.ops++
		r.resync(ctx, path, doc, r.opDone(ctx))
	}
}

// tellUnseen tells the diagnostics actor of a change on disk the watcher
// did not report (none runs, or it may have missed changes), as it
// forwards those it reports: what changed on disk and when is what other
// files' errors are attributed to.
func (r *routerActor) tellUnseen(ctx actor.Context, seen bool, path string, t messages.FileChangeType) {
	if seen || r.cfg.Diagnostics == nil {
		return
	}
	ctx.Send(r.cfg.Diagnostics, &messages.FilesChanged{Workspace: r.cfg.Workspace,
		Changes: []messages.FileChange{{Path: path, URI: paths.URI(path), Type: t}}})
}

// opDone returns the completion of one piece of barrier work.
func (r *routerActor) opDone(ctx actor.Context) func() {
	return func() {
		r.b.ops--
		r.finishBarrier(ctx)
	}
}

// logSyncErrors logs the servers that failed a sync nobody waits for.
func (r *routerActor) logSyncErrors(what string, fs *messages.FileSynced) {
	for _, sv := range fs.Servers {
		if sv.Err != nil {
			r.cfg.Logger.Warn(what+" failed", "path", fs.Path, "server", sv.ServerID, "err", sv.Err)
		}
	}
}
