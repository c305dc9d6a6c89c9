package diagnostics

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Timer messages of the edits.
type (
	editTimeout struct{ id uint64 }
	editSettled struct{ id uint64 }
	editExpired struct{ id uint64 }
)

// onEditStarted records where the edit's baseline is: the store's write
// count now.
func (a *diagnosticsActor) onEditStarted(ctx actor.Context, m *messages.EditStarted) {
	e, ok := a.edits.Start(m.EditID, m.Session, m.URI, a.store.Seq(), a.now())
	if !ok {
		a.cfg.Logger.Warn("too many edits pending; ignoring EditStarted", "edit", m.EditID)
		return
	}
	e.Current = m.Current
	e.Expiry = a.timers.After(pendingEditLifetime, &editExpired{id: m.EditID})
	if m.Session != "" {
		a.session(m.Session).mine.Add(m.URI, struct{}{})
	}
	a.askReach(ctx, reachJob{edit: m.EditID, path: paths.FromURI(m.URI)})
}

// onEditAborted forgets an edit whose change never went out.
func (a *diagnosticsActor) onEditAborted(m *messages.EditAborted) {
	if e, ok := a.edits.Forget(m.EditID); ok {
		a.timers.Cancel(e.Expiry)
	}
}

// onEditCancelled drops the wait of an edit whose requester gave up; its
// baseline stays for the session's next edit of the document.
func (a *diagnosticsActor) onEditCancelled(m *messages.EditCancelled) {
	e := a.edits.Get(m.EditID)
	if e == nil {
		return
	}
	a.timers.Cancel(e.Timeout)
	a.timers.Cancel(e.SettleTimer)
	a.timers.Cancel(e.Expiry)
	a.edits.Cancel(e, a.now())
}

// onAwaitEdit attaches the wait to its edit and checks it at once:
// diagnostics may be there.
func (a *diagnosticsActor) onAwaitEdit(ctx actor.Context, m *messages.AwaitEdit) {
	e := a.edits.Await(m, ctx.Sender(), a.store.Seq(), a.now(), DefaultSettle)
	a.timers.Cancel(e.Expiry)
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultEditTimeout
	}
	for _, sv := range m.Servers {
		a.noteVersion(store.Key{Server: sv.ServerKey, URI: m.URI}, sv.Version)
	}
	e.Settle = a.learnedSettle(e.Settle, m.Servers)
	e.Timeout = a.timers.After(timeout, &editTimeout{id: e.ID})
	a.check(ctx, e)
}

// noteVersion records that version v of a document went to a server.
func (a *diagnosticsActor) noteVersion(k store.Key, v int32) {
	if _, ok := a.versions[k]; !ok && len(a.versions) >= maxVersions {
		clear(a.versions)
	}
	if cur := a.versions[k]; v > cur || cur == closedVersion {
		a.versions[k] = v
	}
}

// closedVersion in versions marks a document closed on its server: what
// is stored for it describes its text while it was open (an edit in
// memory, perhaps) until the server publishes without a version, about
// the file on disk, if it diagnoses closed files at all (serverView
// closedFiles). The version it had open no longer applies: the server
// never describes that version of a closed file.
const closedVersion = math.MaxInt32

// onSent records a version sent to a server that versions its diagnostics
// (pulls, or versioned pushes): until it describes that version, what is
// stored for the document is stale (fileStatus), and not among an answer's
// other files. A document re-synced from disk changed under an answer that
// named it, fresh, with an error of its previous text.
func (a *diagnosticsActor) onSent(m *messages.DocumentSent) {
	k := store.Key{Server: messages.ServerKey{ServerID: m.ServerID, Root: m.Root}, URI: m.URI}
	a.noteOpened(k, m)
	if m.Left {
		a.store.Forget(k)
		delete(a.versions, k)
		delete(a.views, k)
		return
	}
	a.server(k.Server).pulls = m.Pulls
	if m.Closed {
		if _, ok := a.versions[k]; ok || a.server(k.Server).versioned {
			a.versions[k] = closedVersion
		}
		return
	}
	if _, ok := a.views[k]; !ok && len(a.views) >= maxVersions {
		clear(a.views)
	}
	text := m.Version // the version whose text the document has
	if prev, ok := a.views[k]; ok && m.Touch && prev.version < m.Version {
		text = prev.text
	}
	a.views[k] = sentView{version: m.Version, view: m.View, text: text}
	if a.server(k.Server).versioned || a.store.Get(k).Pull != nil {
		a.noteVersion(k, m.Version)
	}
}

// check asks the tracker whether e is done and acts on the verdict.
func (a *diagnosticsActor) check(ctx actor.Context, e *edits.Edit) {
	switch a.edits.Check(e, func(w *edits.Wait) (bool, bool) { return a.satisfied(e, w) }, a.now()) {
	case edits.Release:
		a.release(ctx, e, "")
	case edits.SettleStart:
		e.SettleTimer = a.timers.After(e.Settle, &editSettled{id: e.ID})
	}
}

// satisfied reports whether the server produced diagnostics for the
// version the edit gave it: a pull or versioned push for that version or
// later (a pull alone from a server that is pulled), or, from a server
// never seen to send versions, a push that arrived after the change was
// sent (once a server sent a version, a push without one is about a file
// it does not have open, never an edit's text). A server that failed or
// is broken counts as done.
func (a *diagnosticsActor) satisfied(e *edits.Edit, w *edits.Wait) (done, pulled bool) {
	if w.Err != nil || a.server(w.ServerKey).broken {
		return true, true
	}
	if w.Barrier != nil {
		done = a.barrierPassed(e, w)
		return done, done
	}
	en := a.store.Get(store.Key{Server: w.ServerKey, URI: e.URI})
	if w.PullView > 0 {
		// Pulled again instead of touched: only a pull asked at that view
		// or later describes the document; an older pull, or a push, of the
		// same version may not.
		done = en.Pull != nil && en.Pull.Version >= w.Version && en.Pull.View >= w.PullView
		return done, done
	}
	if en.Pull != nil && en.Pull.Version >= w.Version {
		return true, true
	}
	v := a.server(w.ServerKey)
	if p := en.Push; p != nil && !v.pulls {
		// A server that is pulled is done by its pull alone: what it
		// pushes besides is partial (rust-analyzer pushes its cargo
		// check's findings; an edit released by such a push alone went
		// out fresh without the pull's type errors).
		versionless := !p.HasVersion && p.At.After(w.SentAt) && !v.versioned
		if p.HasVersion && p.Version >= w.Version || versionless {
			// Complete, with no settle window, when the server said its
			// diagnosis of every change since was done, or when the push is
			// a settle window old (it had its later phases) and the server
			// is not still diagnosing a change sent since.
			quiet := v.signals && v.diagBegan.After(w.SentAt) && v.diagnoses == 0
			return true, quiet || !a.diagnosing(w) && p.At.Add(e.Settle).Before(a.now())
		}
	}
	return false, false
}

// barrierPassed reports whether the server, which was not touched for
// e's document because the touch w.Barrier stands for it, has described
// that touch's version, said its diagnosis since the touch was sent
// (w.SentAt) ended with none running, and holds diagnostics of the
// document's version: what it published of the document is then current
// as of the touch (messages.Barrier).
func (a *diagnosticsActor) barrierPassed(e *edits.Edit, w *edits.Wait) bool {
	v := a.server(w.ServerKey)
	if !v.signals || v.diagnoses > 0 || !v.diagBegan.After(w.SentAt) {
		return false
	}
	described := func(uri string, version int32) bool {
		p := a.store.Get(store.Key{Server: w.ServerKey, URI: uri}).Push
		return p != nil && p.HasVersion && p.Version >= version
	}
	return described(w.Barrier.URI, w.Barrier.Version) && described(e.URI, w.Version)
}

func (a *diagnosticsActor) onEditSettled(ctx actor.Context, m *editSettled) {
	e := a.edits.Get(m.id)
	if e == nil || !e.Waiting() {
		return
	}
	if left := e.SettleLeft(a.now()); left > 0 {
		e.SettleTimer = a.timers.After(left, &editSettled{id: e.ID})
		return
	}
	if !a.edits.Revalidate(e, func(w *edits.Wait) (bool, bool) { return a.satisfied(e, w) }) {
		return // a push that counted no longer does: wait for the server again
	}
	if slices.ContainsFunc(e.Waits, a.diagnosing) {
		// Its diagnosis ending answers the edit (onProgress); this window
		// only stands in if that end does not come with none running.
		e.SettleTimer = a.timers.After(e.Settle, &editSettled{id: e.ID})
		return
	}
	a.release(ctx, e, "")
}

// diagnosing reports whether w's server, one that signals its diagnoses,
// is still diagnosing, in a diagnosis begun after w's version was sent:
// what it published for that version may not be all. gopls published a
// version with none of its errors, then the errors 230 ms later, past the
// settle window: the answer said fresh and clean.
func (a *diagnosticsActor) diagnosing(w *edits.Wait) bool {
	v := a.servers[w.ServerKey]
	return v != nil && v.signals && v.diagnoses > 0 && v.diagBegan.After(w.SentAt)
}

func (a *diagnosticsActor) onEditTimeout(ctx actor.Context, m *editTimeout) {
	e := a.edits.Get(m.id)
	if e == nil || !e.Waiting() {
		return
	}
	working := func(w *edits.Wait) bool { return a.working(e, w) }
	if left := e.Started.Add(e.Req.WorkingTimeout).Sub(a.now()); left > 0 && slices.ContainsFunc(e.Waits, working) {
		// Past the timeout, a server still at work on the change: the
		// edit waits for that work, as its caller asked. When the work
		// ends with the change described, check releases it; when it
		// ends without, the next look does.
		e.Timeout = a.timers.After(min(left, workingPoll), &editTimeout{id: e.ID})
		return
	}
	a.release(ctx, e, fmt.Sprintf("timed out after %v", a.now().Sub(e.Started).Round(1e6)))
}

// workingPoll is how often an edit past its timeout looks again whether
// its servers are still at work (WaitOptions.WorkingTimeout).
const workingPoll = 250 * time.Millisecond

// working reports whether w's server says it is at work on w's version:
// diagnosing since the version was sent (what it published of the
// version may not be all yet), or, before it described the version,
// starting (or stopped until its changing configuration is quiet),
// reporting work-done progress (loading its workspace), asked for the
// version's diagnostics by a pull not answered yet (pyright with 79 files
// open took 3.2 s to answer one), or within e's timeout of the end of
// such work: a wait that polled in the gap between gopls's end of loading
// and the begin of its diagnosis timed out, where one that polled 0.3 s
// later was answered fresh.
func (a *diagnosticsActor) working(e *edits.Edit, w *edits.Wait) bool {
	v := a.server(w.ServerKey)
	if v.broken {
		return false
	}
	if a.diagnosing(w) {
		return true
	}
	atWork := v.state == messages.StateStarting || v.reconfiguring() || v.indexing || v.pulls
	return !w.Done && (atWork || a.now().Sub(v.workEnded) < cmp.Or(e.Req.Timeout, DefaultEditTimeout))
}

// release answers the edit and forgets it.
func (a *diagnosticsActor) release(ctx actor.Context, e *edits.Edit, timedOut string) {
	if timedOut == "" {
		a.learnGaps(e)
	}
	a.timers.Cancel(e.Timeout)
	a.timers.Cancel(e.SettleTimer)
	if a.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		a.logRelease(e, timedOut)
	}
	res := a.editResult(e, timedOut)
	a.edits.Done(e, a.store.Seq(), a.now())
	if e.ReplyTo != nil {
		ctx.Send(e.ReplyTo, res)
	}
}

// logRelease logs, at debug level, why an edit is answered: each server's
// version, when it was sent, and what the store holds for the document.
func (a *diagnosticsActor) logRelease(e *edits.Edit, timedOut string) {
	var waits []string
	for _, w := range e.Waits {
		en := a.store.Get(store.Key{Server: w.ServerKey, URI: e.URI})
		held := "no push"
		if p := en.Push; p != nil {
			held = fmt.Sprintf("push v%d (versioned %v) at %s, %d diagnostics", p.Version, p.HasVersion, p.At.Format("15:04:05.000"), len(p.Diags))
		}
		began, running := time.Time{}, 0
		if v := a.servers[w.ServerKey]; v != nil {
			began, running = v.diagBegan, v.diagnoses
		}
		barrier := ""
		if b := w.Barrier; b != nil {
			barrier = fmt.Sprintf(" (the touch of %s v%d stands for its own)", b.URI, b.Version)
		}
		waits = append(waits, fmt.Sprintf("%s v%d sent %s%s done %v pulled %v; %s; diagnosis began %s, running %d",
			w.ServerID, w.Version, w.SentAt.Format("15:04:05.000"), barrier, w.Done, w.Pulled, held, began.Format("15:04:05.000"), running))
	}
	a.cfg.Logger.Debug("edit answered", "uri", e.URI, "session", e.Session, "edit", e.ID,
		"settling", e.Settling(), "timedOut", timedOut, "waits", waits)
}

// Learned settle windows. A server that gives no signal of complete
// diagnostics gets a settle window after its push for an edit's version,
// for the later phases some servers publish. Its length is learned from
// what the server does: the gap between the push that satisfied an edit
// and the last push for that document within the window, twice the
// largest of the last gapsKept, at least minSettle, at most the
// configured window; the configured window until gapsKept were seen.

const (
	gapsKept  = 16
	minSettle = 20 * time.Millisecond
)

// learnGaps records, for each server whose push satisfied e, the gap to
// the document's last push in the settle window.
func (a *diagnosticsActor) learnGaps(e *edits.Edit) {
	if !e.Settling() {
		return
	}
	for _, w := range e.Waits {
		if !w.Done || w.Pulled || w.Err != nil {
			continue
		}
		p := a.store.Get(store.Key{Server: w.ServerKey, URI: e.URI}).Push
		if p == nil {
			continue
		}
		v := a.server(w.ServerKey)
		if len(v.gaps) == gapsKept {
			v.gaps = append(v.gaps[:0], v.gaps[1:]...)
		}
		v.gaps = append(v.gaps, max(0, p.At.Sub(e.SettleStart())))
	}
}

// learnedSettle is the settle window for an edit of these servers: the
// longest any of them needs.
func (a *diagnosticsActor) learnedSettle(configured time.Duration, servers []messages.ServerVersion) time.Duration {
	out := time.Duration(0)
	for _, sv := range servers {
		v := a.server(sv.ServerKey)
		if len(v.gaps) < gapsKept {
			return configured
		}
		out = max(out, 2*slices.Max(v.gaps))
	}
	return min(configured, max(out, minSettle))
}
