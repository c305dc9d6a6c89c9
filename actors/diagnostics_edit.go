package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// edit is one edit whose diagnostics a caller waits for.
type edit struct {
	id       uint64
	session  string
	uri      string
	started  time.Time
	startSeq uint64 // the store's write count when the edit started: its baseline

	req     *messages.AwaitEdit // nil until AwaitEdit arrives
	replyTo *actor.PID
	waits   []*serverWait
	settle  time.Duration
	// settleAt is when the settle window ends; zero while some server has
	// not produced diagnostics for its version yet.
	settleAt    time.Time
	settleStart time.Time // when every server was done
	settleTimer uint64
	timeout     uint64 // timer ids
	expiry      uint64
}

// serverWait is one server an edit waits for.
type serverWait struct {
	messages.ServerVersion
	done   bool
	pulled bool // satisfied by a pull: complete, no settle needed
}

// waiting reports whether the edit has its AwaitEdit and is not released.
func (e *edit) waiting() bool { return e.req != nil }

type (
	editTimeout struct{ id uint64 }
	editSettled struct{ id uint64 }
	editExpired struct{ id uint64 }
)

// onEditStarted records where the edit's baseline is: the store's write
// count now (see diagnostics_store.go).
func (a *diagnosticsActor) onEditStarted(m *messages.EditStarted) {
	if len(a.edits) >= maxPendingEdits {
		a.cfg.Logger.Warn("too many edits pending; ignoring EditStarted", "edit", m.EditID)
		return
	}
	if len(a.editedAt) >= maxChangeLog {
		clear(a.editedAt)
	}
	a.editedAt[m.URI] = a.seq
	e := &edit{id: m.EditID, session: m.Session, uri: m.URI, started: time.Now(), startSeq: a.seq}
	e.expiry = a.timers.after(pendingEditLifetime, &editExpired{id: m.EditID})
	a.edits[m.EditID] = e
}

// onEditExpired forgets an edit whose AwaitEdit never came.
func (a *diagnosticsActor) onEditExpired(m *editExpired) {
	if e, ok := a.edits[m.id]; ok && !e.waiting() {
		delete(a.edits, m.id)
	}
}

// onEditAborted forgets an edit whose change never went out.
func (a *diagnosticsActor) onEditAborted(m *messages.EditAborted) {
	if e, ok := a.edits[m.EditID]; ok && !e.waiting() {
		a.timers.cancel(e.expiry)
		delete(a.edits, m.EditID)
	}
}

// onAwaitEdit attaches the wait to its edit (an edit without EditStarted
// gets an empty baseline) and checks it at once: diagnostics may be there.
func (a *diagnosticsActor) onAwaitEdit(ctx actor.Context, m *messages.AwaitEdit) {
	e, ok := a.edits[m.EditID]
	if !ok {
		e = &edit{id: m.EditID, session: m.Session, uri: m.URI, started: time.Now(), startSeq: a.seq}
		a.edits[m.EditID] = e
	}
	a.timers.cancel(e.expiry)
	e.req, e.replyTo = m, ctx.Sender()
	e.settle = m.Settle
	if e.settle <= 0 {
		e.settle = DefaultSettle
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultEditTimeout
	}
	for _, sv := range m.Servers {
		e.waits = append(e.waits, &serverWait{ServerVersion: sv})
		k := diagKey{server: sv.ServerKey, uri: m.URI}
		if sv.Version > a.versions[k] {
			a.versions[k] = sv.Version
		}
	}
	e.timeout = a.timers.after(timeout, &editTimeout{id: e.id})
	a.check(ctx, e)
}

// onUpdate: new diagnostics from one of the edit's servers. A push from
// it during the settle window extends the window (phases, and cascades
// into other files).
func (a *diagnosticsActor) onUpdate(ctx actor.Context, e *edit, k diagKey, pulled bool) {
	if !e.waiting() {
		return
	}
	for _, w := range e.waits {
		if w.ServerKey == k.server {
			if !pulled && !e.settleAt.IsZero() && a.mayExtend(e, k.uri) {
				e.settleAt = time.Now().Add(e.settle)
			}
			a.check(ctx, e)
			return
		}
	}
}

// mayExtend reports whether a push for uri extends the edit's settle
// window: one for the edited document (a later phase), or for a document
// nobody edited since the edit started (a cascade into an importer); not
// one caused by another agent's edit. The window never ends later than
// three settle windows after the servers were all done.
func (a *diagnosticsActor) mayExtend(e *edit, uri string) bool {
	if time.Now().Add(e.settle).After(e.settleStart.Add(3 * e.settle)) {
		return false
	}
	return uri == e.uri || !a.editedElsewhere(e, uri)
}

// editedElsewhere reports whether another edit touched uri: one started
// after e, or one still waiting.
func (a *diagnosticsActor) editedElsewhere(e *edit, uri string) bool {
	if a.editedAt[uri] > e.startSeq {
		return true
	}
	for _, o := range a.edits {
		if o != e && o.uri == uri {
			return true
		}
	}
	return false
}

// check marks the servers that produced diagnostics for their version and
// releases the edit when all did: at once if every one was a complete
// pull, else after the settle window.
func (a *diagnosticsActor) check(ctx actor.Context, e *edit) {
	if !e.waiting() {
		return
	}
	allPulled := true
	for _, w := range e.waits {
		if !w.done {
			w.done, w.pulled = a.satisfied(e, w)
		}
		if !w.done {
			return
		}
		allPulled = allPulled && w.pulled
	}
	if allPulled {
		a.release(ctx, e, "")
		return
	}
	if e.settleAt.IsZero() {
		e.settleStart = time.Now()
		e.settleAt = e.settleStart.Add(e.settle)
		e.settleTimer = a.timers.after(e.settle, &editSettled{id: e.id})
	}
}

// satisfied reports whether the server produced diagnostics for the
// version the edit gave it: a pull or versioned push for that version or
// later, or for a server that sends no versions, a push that arrived after
// the change was sent. A server that failed or is broken counts as done.
func (a *diagnosticsActor) satisfied(e *edit, w *serverWait) (done, pulled bool) {
	if w.Err != nil || a.server(w.ServerKey).broken {
		return true, true
	}
	en := a.entry(diagKey{server: w.ServerKey, uri: e.uri})
	if en.pull != nil && en.pull.version >= w.Version {
		return true, true
	}
	if p := en.push; p != nil {
		if p.hasVersion && p.version >= w.Version || !p.hasVersion && p.at.After(w.SentAt) {
			return true, false
		}
	}
	return false, false
}

func (a *diagnosticsActor) onEditSettled(ctx actor.Context, m *editSettled) {
	e, ok := a.edits[m.id]
	if !ok || !e.waiting() {
		return
	}
	if wait := time.Until(e.settleAt); wait > 0 {
		e.settleTimer = a.timers.after(wait, &editSettled{id: e.id})
		return
	}
	a.release(ctx, e, "")
}

func (a *diagnosticsActor) onEditTimeout(ctx actor.Context, m *editTimeout) {
	e, ok := a.edits[m.id]
	if !ok || !e.waiting() {
		return
	}
	a.release(ctx, e, fmt.Sprintf("timed out after %v", time.Since(e.started).Round(time.Millisecond)))
}

// release answers the edit and forgets it. The document counts as edited
// until now, so edits that overlapped this one do not take its
// diagnostics for their own cascade.
func (a *diagnosticsActor) release(ctx actor.Context, e *edit, timedOut string) {
	delete(a.edits, e.id)
	a.editedAt[e.uri] = a.seq
	a.timers.cancel(e.timeout)
	a.timers.cancel(e.settleTimer)
	res := a.editResult(e, timedOut)
	if e.replyTo != nil {
		ctx.Send(e.replyTo, res)
	}
}
