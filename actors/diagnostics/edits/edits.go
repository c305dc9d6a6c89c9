// Package edits is the diagnostics actor's edit tracker: the edits whose
// diagnostics a caller waits for, which of their servers produced
// diagnostics for the version they got, and when each edit is released:
// at once when every server answered with a complete pull, else after a
// settle window for servers that publish in phases, which a further push
// extends (to at most three windows); the hard timeout is the shell's.
//
// A Tracker is a single-threaded core: owned by one actor, no goroutines,
// no I/O, time passed in; not safe for concurrent use.
package edits

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/reach"
)

// Bounds of a tracker.
const (
	MaxPending = 10000 // edits started and not released
	maxEdited  = 1 << 16
	maxRecent  = 256 // released edits kept for overlap checks
)

// Edit is one edit. The tracker owns its fields; the shell reads them and
// keeps its timer ids in Timeout, SettleTimer and Expiry.
type Edit struct {
	ID       uint64
	Session  string
	URI      string
	Started  time.Time
	StartSeq uint64 // the store's write count when the edit started: its baseline

	Req     *messages.AwaitEdit // nil until AwaitEdit arrives
	ReplyTo *actor.PID
	Waits   []*Wait
	Settle  time.Duration

	settleStart time.Time // when every server was done; zero before
	settleAt    time.Time // when the settle window ends

	Timeout, SettleTimer, Expiry uint64

	// Reach is what the edit's change can reach (computed from the import
	// graph after it started; nil until then), and Ended when it was
	// released: for the attribution of other files' diagnostics. Current
	// marks a diagnostics call, which changes nothing itself.
	Reach   *reach.Reach
	Ended   time.Time
	Current bool
}

// Wait is one server an edit waits for.
type Wait struct {
	messages.ServerVersion
	Done   bool
	Pulled bool // complete, no settle needed: a pull, or a push the server since said was complete
}

// Waiting reports whether the edit has its AwaitEdit and is not released.
func (e *Edit) Waiting() bool { return e.Req != nil }

// Settling reports whether every server is done and the settle window runs.
func (e *Edit) Settling() bool { return !e.settleStart.IsZero() }

// SettleStart is when every server was done (zero before).
func (e *Edit) SettleStart() time.Time { return e.settleStart }

// Tracker holds the edits.
type Tracker struct {
	edits    map[uint64]*Edit
	held     map[string][]*Edit // document -> its edits held, in no order
	editedAt map[string]uint64  // document -> store seq when an edit of it last started or ended
	// bases keeps the baseline of an edit whose wait was abandoned, for the
	// session's next edit of the document: what that edit caused was never
	// shown, so it stays new.
	bases map[baseKey]uint64
	// recent are released edits, newest last, for overlap checks.
	recent []*Edit
}

type baseKey struct{ session, uri string }

// New returns an empty tracker.
func New() *Tracker {
	return &Tracker{edits: make(map[uint64]*Edit), held: make(map[string][]*Edit), editedAt: make(map[string]uint64), bases: make(map[baseKey]uint64)}
}

// hold and drop add an edit to the held ones and remove it.
func (t *Tracker) hold(e *Edit) {
	t.edits[e.ID] = e
	t.held[e.URI] = append(t.held[e.URI], e)
}

func (t *Tracker) drop(e *Edit) {
	if t.edits[e.ID] != e {
		return
	}
	delete(t.edits, e.ID)
	of := t.held[e.URI]
	i := slices.Index(of, e)
	of[i] = of[len(of)-1]
	of[len(of)-1] = nil
	if of = of[:len(of)-1]; len(of) == 0 {
		delete(t.held, e.URI)
	} else {
		t.held[e.URI] = of
	}
}

// Len is the number of edits held.
func (t *Tracker) Len() int { return len(t.edits) }

// Get returns an edit, nil when unknown.
func (t *Tracker) Get(id uint64) *Edit { return t.edits[id] }

// Each calls f for every edit.
func (t *Tracker) Each(f func(*Edit)) {
	for _, e := range t.edits {
		f(e)
	}
}

// EachOf calls f for every edit of the document uri held when it is
// called; f may release or forget edits. What a publication about uri can
// complete is an edit of uri: with a thousand agents editing, looking
// only there instead of at every edit held is most of what a publication
// costs.
func (t *Tracker) EachOf(uri string, f func(*Edit)) {
	of := t.held[uri]
	switch len(of) {
	case 0:
		return
	case 1:
		f(of[0])
		return
	}
	for _, e := range slices.Clone(of) {
		f(e)
	}
}

// Start records an edit about to be sent, with its baseline seq; false
// when MaxPending edits are held already.
func (t *Tracker) Start(id uint64, session, uri string, seq uint64, now time.Time) (*Edit, bool) {
	if len(t.edits) >= MaxPending {
		return nil, false
	}
	t.touched(uri, seq)
	if base, ok := t.bases[baseKey{session, uri}]; ok && base < seq {
		seq = base // an abandoned edit's changes are still to be shown
	}
	e := &Edit{ID: id, Session: session, URI: uri, Started: now, StartSeq: seq}
	t.hold(e)
	return e, true
}

// Cancel drops an edit whose requester gave up, keeping its baseline for
// the session's next edit of the document.
func (t *Tracker) Cancel(e *Edit, now time.Time) {
	t.drop(e)
	t.remember(e, now)
	k := baseKey{e.Session, e.URI}
	if base, ok := t.bases[k]; ok && base < e.StartSeq {
		return
	}
	if len(t.bases) >= maxEdited {
		clear(t.bases)
	}
	t.bases[k] = e.StartSeq
}

func (t *Tracker) touched(uri string, seq uint64) {
	if _, ok := t.editedAt[uri]; !ok && len(t.editedAt) >= maxEdited {
		clear(t.editedAt)
	}
	t.editedAt[uri] = seq
}

// Forget drops an edit that is not waiting (aborted, or its AwaitEdit
// never came); false when it is unknown or waiting.
func (t *Tracker) Forget(id uint64) (*Edit, bool) {
	e, ok := t.edits[id]
	if !ok || e.Waiting() {
		return nil, false
	}
	t.drop(e)
	return e, true
}

// Await attaches the wait to its edit (an edit without Start gets the
// baseline seq) and returns it.
func (t *Tracker) Await(m *messages.AwaitEdit, replyTo *actor.PID, seq uint64, now time.Time, defSettle time.Duration) *Edit {
	e, ok := t.edits[m.EditID]
	if !ok {
		e = &Edit{ID: m.EditID, Session: m.Session, URI: m.URI, Started: now, StartSeq: seq}
		t.hold(e)
	}
	e.Req, e.ReplyTo, e.Settle, e.Current = m, replyTo, m.Settle, m.Current
	if e.Settle <= 0 {
		e.Settle = defSettle
	}
	for _, sv := range m.Servers {
		e.Waits = append(e.Waits, &Wait{ServerVersion: sv})
	}
	return e
}

// Verdict is what Check decided.
type Verdict int

// The verdicts.
const (
	Pending     Verdict = iota // some server has not produced diagnostics for its version
	SettleStart                // every server is done: the settle window starts now
	Settling                   // the settle window runs already
	Release                    // release the edit now
)

// Check marks the servers that produced diagnostics for their version
// (satisfied says) and decides: release at once if every server answered
// with a complete pull, else a settle window.
func (t *Tracker) Check(e *Edit, satisfied func(*Wait) (done, pulled bool), now time.Time) Verdict {
	if !e.Waiting() {
		return Pending
	}
	allPulled := true
	for _, w := range e.Waits {
		switch {
		case !w.Done:
			w.Done, w.Pulled = satisfied(w)
		case !w.Pulled: // done by a push: the server may since have said it is complete
			_, w.Pulled = satisfied(w)
		}
		if !w.Done {
			return Pending
		}
		allPulled = allPulled && w.Pulled
	}
	switch {
	case allPulled:
		return Release
	case e.Settling():
		return Settling
	}
	e.settleStart, e.settleAt = now, now.Add(e.Settle)
	return SettleStart
}

// Revalidate checks again, when the settle window ends, the servers that
// were done by a push: one that no longer counts (a push without a version
// from a server since seen to send versions) is waited for again, and the
// settle window starts over once it is done. It reports whether every
// server is still done.
func (t *Tracker) Revalidate(e *Edit, satisfied func(*Wait) (done, pulled bool)) bool {
	ok := true
	for _, w := range e.Waits {
		if w.Done && !w.Pulled {
			if done, _ := satisfied(w); !done {
				w.Done, ok = false, false
			}
		}
	}
	if !ok {
		e.settleStart, e.settleAt = time.Time{}, time.Time{}
	}
	return ok
}

// Pushed notes a push for uri from server during e's settle window: one
// for the edited document (a later phase) or for a document nobody edited
// since e started (a cascade into an importer) extends the window, never
// past three windows after every server was done.
func (t *Tracker) Pushed(e *Edit, server messages.ServerKey, uri string, now time.Time) {
	if !e.Settling() || !e.Serves(server) {
		return
	}
	if now.Add(e.Settle).After(e.settleStart.Add(3 * e.Settle)) {
		return
	}
	if uri == e.URI || !t.EditedElsewhere(e, uri) {
		e.settleAt = now.Add(e.Settle)
	}
}

// Serves reports whether server is one the edit waits for.
func (e *Edit) Serves(server messages.ServerKey) bool {
	for _, w := range e.Waits {
		if w.ServerKey == server {
			return true
		}
	}
	return false
}

// SettleLeft is how long e's settle window still runs (<= 0: it ended).
func (e *Edit) SettleLeft(now time.Time) time.Duration { return e.settleAt.Sub(now) }

// EditedElsewhere reports whether another edit touched uri: one that
// started after e, or one still held.
func (t *Tracker) EditedElsewhere(e *Edit, uri string) bool {
	if t.editedAt[uri] > e.StartSeq {
		return true
	}
	n := len(t.held[uri])
	if e.URI == uri && t.edits[e.ID] == e {
		n-- // e itself
	}
	return n > 0
}

// Done forgets a released edit. Its document counts as edited until now
// (seq), so edits that overlapped it do not take its diagnostics for
// their own cascade.
func (t *Tracker) Done(e *Edit, seq uint64, now time.Time) {
	t.drop(e)
	delete(t.bases, baseKey{e.Session, e.URI})
	t.touched(e.URI, seq)
	t.remember(e, now)
}

// remember keeps a finished edit for overlap checks.
func (t *Tracker) remember(e *Edit, now time.Time) {
	e.Ended = now
	if len(t.recent) == maxRecent {
		t.recent = append(t.recent[:0], t.recent[1:]...)
	}
	t.recent = append(t.recent, e)
}

// Find returns a held or recently finished edit.
func (t *Tracker) Find(id uint64) *Edit {
	if e := t.edits[id]; e != nil {
		return e
	}
	for _, e := range t.recent {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// Overlapping returns the edits other than e that ran while e did: those
// held, and those that finished after e started (one that finished before
// had all its diagnostics then). They may have changed the same files as e.
func (t *Tracker) Overlapping(e *Edit) []*Edit { return t.OverlappingSince(e, e.Started) }

// OverlappingSince returns the edits other than e held, and those that
// finished after since.
func (t *Tracker) OverlappingSince(e *Edit, since time.Time) []*Edit {
	var out []*Edit
	for _, o := range t.edits {
		if o != e {
			out = append(out, o)
		}
	}
	for _, o := range t.recent {
		if o != e && o.Ended.After(since) {
			out = append(out, o)
		}
	}
	return out
}
