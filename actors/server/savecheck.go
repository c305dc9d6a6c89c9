package server

import (
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/docs"
)

// A server's own check of the files on disk, run when a document is saved
// (config CheckOnSave). rust-analyzer runs cargo check, the only source of
// its borrow-checker errors, after its workspace loads and after each
// didSave, as a work-done progress titled "cargo check", and pushes what it
// finds; its pulls answer from its own analysis alone. Without a save, and
// without waiting for the check, a file that uses a moved value was
// answered fresh and clean.
//
// On such a server:
//   - a change synced from disk, or a change on disk the server hears of,
//     makes a check due (saveCheck.due); the next pull, or the next open,
//     sends didSave for its document to ask for it;
//   - one save at a time is in flight (saveCheck.owed: sent, and no check
//     begun since), so that the next check to begin is the one it asked
//     for; a change meanwhile saves again once that check began (the
//     server then cancels it and begins another);
//   - a start owes a check, without a save;
//   - a pull answered while a check runs or is owed is held, and asked
//     again once it ended (indexwait.go), for at most IndexWait: the
//     check's pushes came before its end, and the pull asked after it is
//     merged with them (store.Entry.Current);
//   - a check owed that has not begun checkGrace after the save, or after
//     the end of the server's loading work, is waited for no longer: the
//     user's settings may turn the server's check off.

// checkGrace is how long a check owed may take to begin.
const checkGrace = 3 * time.Second

// saveCheck is the state of the server's check on save, per incarnation.
type saveCheck struct {
	due   bool   // changes from disk since the last save sent
	owed  bool   // a save sent (or the start), and no check begun since
	uri   string // the document whose change made the check due
	begun uint64 // checks begun, ever: see pending.checks
	grace uint64 // the generation of the grace timer in force
}

// checkGraceOver is the timer message that ends the wait for a check owed
// to begin.
type checkGraceOver struct{ gen uint64 }

// checksOnSave reports whether the server runs a check on save.
func (a *serverActor) checksOnSave() bool { return a.cfg.Server.CheckOnSave != "" }

// isCheck reports whether a work-done progress titled title is the
// server's check on save.
func (a *serverActor) isCheck(title string) bool {
	return a.checksOnSave() && strings.HasPrefix(title, a.cfg.Server.CheckOnSave)
}

// checking reports whether a check runs, or is owed.
func (a *serverActor) checking() bool { return a.check.owed || a.inProgress(workCheck) > 0 }

// resetCheck forgets the check's state for a new incarnation, keeping the
// counters the older one's calls and timers are compared with; running
// says the incarnation finished its handshake, and owes its own first
// check.
func (a *serverActor) resetCheck(running bool) {
	a.check = saveCheck{begun: a.check.begun, grace: a.check.grace}
	if running && a.checksOnSave() {
		a.check.owed = true
		a.armCheckGrace()
	}
}

// checkDue notes a change from disk of uri ("" for one of a file the
// server does not have open): the check must run again.
func (a *serverActor) checkDue(uri string) {
	if a.checksOnSave() {
		a.check.due = true
		if uri != "" {
			a.check.uri = uri
		}
	}
}

// askForCheck sends didSave for d when a check is due and none is owed.
func (a *serverActor) askForCheck(ctx actor.Context, d *docs.Document) {
	if !a.check.due || a.check.owed || d == nil || !d.Open || !a.running() || !a.takesSave() {
		return
	}
	a.cfg.Logger.Debug("didSave for a check on save", "server", a.cfg.Server.ID, "uri", d.URI)
	a.notify(ctx, "textDocument/didSave", docs.DidSave(d.URI))
	a.check.due, a.check.owed, a.check.uri = false, true, ""
	a.armCheckGrace()
}

// checkBegan records a check begun: the one the last save asked for. A
// change since asks for another.
func (a *serverActor) checkBegan(ctx actor.Context) {
	a.check.begun++
	a.check.owed = false
	if !a.check.due {
		return
	}
	d := a.st.docs.Get(a.check.uri)
	if d == nil || !d.Open {
		d = nil
		a.st.docs.EachOpen(func(o *docs.Document) {
			if d == nil {
				d = o
			}
		})
	}
	a.askForCheck(ctx, d)
}

// armCheckGrace (re)starts the wait for a check owed to begin.
func (a *serverActor) armCheckGrace() {
	a.check.grace++
	a.timers.After(checkGrace, &checkGraceOver{gen: a.check.grace})
}

// onCheckGraceOver gives up on a check owed that did not begin, unless
// the server still loads (the end of its work arms the wait again).
func (a *serverActor) onCheckGraceOver(ctx actor.Context, m *checkGraceOver) {
	if m.gen != a.check.grace || !a.check.owed || a.indexing() {
		return
	}
	a.check.owed = false
	a.cfg.Logger.Debug("no check began after a save", "server", a.cfg.Server.ID, "check", a.cfg.Server.CheckOnSave,
		"within", checkGrace)
	a.askAgainAfterIndex(ctx)
}
