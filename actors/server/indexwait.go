package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/calls"
	"github.com/agentlsp/agentlsp/messages"
)

// Answers given while the server loads its project (config IndexWait).
// typescript-language-server answers while "Initializing JS/TS language
// features": a definition asked then named the import's own name, not the
// declaration, even when the answer came a moment after the work ended,
// and was right when asked again. With IndexWait set, a request that was
// in flight while the server reported work in progress (sent during it,
// or work began before its answer) is sent once more when no work is in
// progress: at once if the work already ended, else when it ends; the
// first answer is held meanwhile, and goes out, marked possibly
// incomplete, if the work has not ended within IndexWait. A request is
// sent again as often as it is answered during work, within one IndexWait
// from its first answer: rust-analyzer loads its workspace in works that
// follow one another a few milliseconds apart ("Fetching", "Building
// CrateGraph", "Roots Scanned", ...), and answered pulls with nothing, and
// references with none or with "content modified", while it did: a broken
// file was answered clean. A "content modified" error during work is held
// as an answer is (with a server that has no IndexWait, or past it, it is
// retried with backoff: requests.go).

// indexWaitOver is the timer message that ends a held answer's wait.
type indexWaitOver struct{ id uint64 }

// heldAnswer is an answer kept while the server works (pending.held):
// a result, or a "content modified" error.
type heldAnswer struct {
	result json.RawMessage
	err    error
	took   time.Duration
}

// holdForIndex holds c's answer m (modified: a "content modified" error)
// when the server works and IndexWait allows the wait within c's
// deadline; it reports whether it did.
func (a *serverActor) holdForIndex(c *calls.Call, m *callDone, modified bool) bool {
	p := pendingOf(c)
	wait, now := a.indexWait(), a.cfg.Clock.Now()
	if !p.heldSince.IsZero() {
		wait -= now.Sub(p.heldSince) // what is left of the request's wait
	}
	if wait <= 0 || m.err != nil && !modified || !a.duringWork(p) || !now.Add(wait).Before(c.Deadline) {
		return false
	}
	if p.heldSince.IsZero() {
		p.heldSince = now
	}
	p.cancel()
	a.calls.Retry(c.ID) // waiting, out of line until the work ends or the wait does
	if !a.busyFor(p) {
		a.calls.Requeue(c.ID) // the work is over: ask again now
		return true
	}
	p.held = &heldAnswer{result: m.result, err: m.err, took: m.took}
	a.afterIndex = append(a.afterIndex, c.ID)
	a.timers.After(wait, &indexWaitOver{id: c.ID})
	return true
}

// duringWork reports whether p's request was in flight while the server
// reported indexing work: it still does, did when the request was sent, or
// began some since; for a pull, the same of a check on save, or one owed.
func (a *serverActor) duringWork(p *pending) bool {
	return a.indexing() || p.inWork || p.works != a.works ||
		p.pull != nil && (a.checking() || p.inCheck || p.checks != a.check.begun)
}

// busyFor reports whether the server is at work that holds p's answer:
// indexing, or for a pull, a check on save running or owed.
func (a *serverActor) busyFor(p *pending) bool {
	return a.indexing() || p.pull != nil && a.checking()
}

// askAgainAfterIndex sends the held requests again whose work is over.
func (a *serverActor) askAgainAfterIndex(ctx actor.Context) {
	if len(a.afterIndex) == 0 || a.indexing() {
		return
	}
	kept := a.afterIndex[:0]
	for _, id := range a.afterIndex {
		c := a.calls.Get(id)
		if c == nil || c.State != calls.Waiting || pendingOf(c).held == nil {
			continue
		}
		if a.busyFor(pendingOf(c)) {
			kept = append(kept, id) // a pull, while a check runs
			continue
		}
		pendingOf(c).held = nil
		a.calls.Requeue(id)
	}
	if a.afterIndex = kept; len(kept) == 0 {
		a.afterIndex = nil
	}
	a.dispatchWaiting(ctx)
}

// onIndexWaitOver answers a request still held when its wait is over with
// the answer it had (the server still works: it is marked so).
func (a *serverActor) onIndexWaitOver(ctx actor.Context, m *indexWaitOver) {
	c := a.calls.Get(m.id)
	if c == nil || c.State != calls.Waiting || pendingOf(c).held == nil {
		return
	}
	p := pendingOf(c)
	if p.pull != nil && !a.indexing() && a.checking() {
		// The check's findings would be missing from the answer, which
		// would say the file is clean of them: no answer instead. The
		// server asks for pulls again when its check ends (a refresh).
		a.finish(ctx, m.id, nil, a.serverError(messages.ErrRequestTimeout,
			fmt.Errorf("its check on save (%q) did not end within %v", a.check.title, a.indexWait()), nil))
		return
	}
	h := p.held
	p.held, p.took = nil, h.took
	err := h.err
	if err != nil && p.pull == nil { // named as onCallDone names a refusal
		err = fmt.Errorf("%s: %s: %w", a.cfg.Server.ID, p.req.Method, err)
	}
	a.finish(ctx, m.id, h.result, err)
}
