package server

import (
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
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
//   - a change synced from disk, a change on disk the server hears of, an
//     agent's save, or the open of a file the last check found something
//     in (pushed then without the version the open gives it, so that its
//     pull would not be merged with it) makes a check due; didSave
//     goes out for the changed document once the server was sent nothing
//     for saveQuiet. rust-analyzer begins its check from a task that the
//     next change sent cancels: a save sent amid a checkout's changes
//     began no check;
//   - one save at a time is in flight (saveCheck.owed: sent, and no check
//     begun since), so that the next check to begin is the one it asked
//     for; a change meanwhile saves again once that check began (the
//     server then cancels it and begins another), or once the save's
//     grace is over;
//   - a start owes a check, without a save;
//   - a pull answered while a check runs, is owed or is about to be asked
//     for is held, and asked again once the check ended (indexwait.go):
//     the check's pushes came before its end, and the pull asked after it
//     is merged with them (store.Entry.Current). A check still running
//     IndexWait after the pull's first answer fails the pull instead, as
//     an answer without the check's findings would say the file is clean
//     of them; the server's refresh at the check's end pulls again;
//   - navigation requests are not held: the check changes no answer of
//     theirs;
//   - a check owed that has not begun checkGrace after the save, or after
//     the end of the server's loading work, with no change sent since, is
//     waited for no longer: the user's settings may turn the server's
//     check off;
//   - what the server pushes for a document from one check's begin to the
//     next's is published as the union of those pushes (of one version):
//     rust-analyzer clears a file's findings when its check begins, then
//     pushes them as they come, each push holding all so far, but under
//     load its last push for main.rs once held two of five (1, 5, then 2
//     diagnostics), and the answer missed the error the check was for.

// defaultCheckWait is the IndexWait of a server that checks on save and
// sets none: its pulls are held for its check all the same.
const defaultCheckWait = 20 * time.Second

// indexWait is how long an answer may be held for the server's work
// (config IndexWait; defaultCheckWait for a server that checks on save).
func (a *serverActor) indexWait() time.Duration {
	if w := time.Duration(a.cfg.Server.IndexWait); w > 0 || !a.checksOnSave() {
		return w
	}
	return defaultCheckWait
}

// checkGrace is how long a check owed may take to begin.
const checkGrace = 3 * time.Second

// saveQuiet is how long the server is sent nothing before a save asks for
// its check.
const saveQuiet = 50 * time.Millisecond

// saveCheck is the state of the server's check on save, per incarnation.
type saveCheck struct {
	due    bool // changes since the last save sent
	owed   bool // a save sent (or the start), and no check begun since
	saving bool // a save is to go out: the saveQuiet timer runs
	// lastDue is when a change last made the check due: the save waits
	// until saveQuiet after it.
	lastDue time.Time
	uri     string // the document whose change made the check due
	begun   uint64 // checks begun, ever: see pending.checks
	grace   uint64 // the generation of the grace timer in force
	quiet   uint64 // the incarnation's generation of saveQuiet timers
	title   string // the last check's, as the server named it
	// pushed is what the server pushed for each document since the last
	// check began (ofCheck), at most maxCheckPushed documents.
	pushed map[string]checkPush
}

// checkPush is the union of a check's pushes for one document version.
type checkPush struct {
	version    int32
	hasVersion bool
	diags      []messages.Diagnostic
}

// maxCheckPushed bounds saveCheck.pushed; beyond it, a document's pushes
// are published as they come.
const maxCheckPushed = 4096

// Timer messages: the wait for a check owed to begin is over; the server
// was quiet long enough for a save.
type (
	checkGraceOver struct{ gen uint64 }
	checkSaveNow   struct{ gen uint64 }
)

// checksOnSave reports whether the server runs a check on save.
func (a *serverActor) checksOnSave() bool { return a.cfg.Server.CheckOnSave != "" }

// isCheck reports whether a work-done progress titled title is the
// server's check on save.
func (a *serverActor) isCheck(title string) bool {
	return a.checksOnSave() && strings.HasPrefix(title, a.cfg.Server.CheckOnSave)
}

// checking reports whether a check runs, is owed, or is about to be asked
// for.
func (a *serverActor) checking() bool {
	return a.check.owed || a.check.saving || a.inProgress(workCheck) > 0
}

// resetCheck forgets the check's state for a new incarnation, keeping the
// counters the older one's calls and timers are compared with; running
// says the incarnation finished its handshake, and owes its own first
// check.
func (a *serverActor) resetCheck(running bool) {
	a.check = saveCheck{begun: a.check.begun, grace: a.check.grace, quiet: a.check.quiet + 1, title: a.cfg.Server.CheckOnSave}
	if running && a.checksOnSave() {
		a.check.owed = true
		a.armCheckGrace()
	}
}

// checkDue notes a change sent to the server, of uri ("" for a file it
// does not have open): the check must run again, once the server has
// been sent nothing for saveQuiet.
func (a *serverActor) checkDue(uri string) {
	if !a.checksOnSave() {
		return
	}
	a.check.due = true
	if uri != "" {
		a.check.uri = uri
	}
	a.check.lastDue = a.cfg.Clock.Now()
	if !a.check.saving { // one timer for a burst of changes
		a.check.saving = true
		a.timers.After(saveQuiet, &checkSaveNow{gen: a.check.quiet})
	}
}

// onCheckSaveNow asks for the check due once the server was sent nothing
// for saveQuiet, unless a check is owed (its begin asks).
func (a *serverActor) onCheckSaveNow(ctx actor.Context, m *checkSaveNow) {
	if m.gen != a.check.quiet || !a.check.saving {
		return // an older incarnation's
	}
	if left := a.check.lastDue.Add(saveQuiet).Sub(a.cfg.Clock.Now()); left > 0 {
		a.timers.After(left, m) // a change came since the timer was armed
		return
	}
	a.check.saving = false
	a.askForCheck(ctx)
	a.askAgainAfterIndex(ctx) // held for a save that could not go out
}

// askForCheck sends didSave when a check is due and none is owed: for the
// document whose change made it due, or any open one.
func (a *serverActor) askForCheck(ctx actor.Context) {
	if !a.check.due || a.check.owed || !a.running() || !a.takesSave() {
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
	if d == nil {
		return // due still: the next open asks
	}
	a.cfg.Logger.Debug("didSave for a check on save", "server", a.cfg.Server.ID, "uri", d.URI)
	a.notify(ctx, "textDocument/didSave", docs.DidSave(d.URI))
	a.check.due, a.check.owed, a.check.uri = false, true, ""
	a.armCheckGrace()
}

// checkBegan records a check begun: the one the last save asked for. A
// change since asks for another.
func (a *serverActor) checkBegan(ctx actor.Context, title string) {
	a.check.begun++
	a.check.title = title
	a.check.owed = false
	a.check.pushed = nil
	if !a.check.saving {
		a.askForCheck(ctx)
	}
}

// armCheckGrace (re)starts the wait for a check owed to begin.
func (a *serverActor) armCheckGrace() {
	a.check.grace++
	a.timers.After(checkGrace, &checkGraceOver{gen: a.check.grace})
}

// onCheckGraceOver ends the wait for a check owed that did not begin,
// unless the server still loads (the end of its work arms the wait
// again). A change sent since may have cancelled the check the save
// asked for: that change's save goes out now; otherwise the server runs
// no check, and the pulls held for it are answered.
func (a *serverActor) onCheckGraceOver(ctx actor.Context, m *checkGraceOver) {
	if m.gen != a.check.grace || !a.check.owed || a.indexing() {
		return
	}
	a.check.owed = false
	a.cfg.Logger.Debug("no check began after a save", "server", a.cfg.Server.ID, "check", a.cfg.Server.CheckOnSave,
		"within", checkGrace, "saving again", a.check.due)
	if !a.check.saving {
		a.askForCheck(ctx)
	}
	a.askAgainAfterIndex(ctx)
}

// checkFound reports whether the last check pushed findings for uri (or
// too many documents to tell): opened, the document needs a check of its
// own for them to count.
func (a *serverActor) checkFound(uri string) bool {
	p, ok := a.check.pushed[uri]
	return ok && len(p.diags) > 0 || len(a.check.pushed) >= maxCheckPushed
}

// ofCheck is what to publish for a push of diags for uri (of version, if
// hasVersion) from a server that checks on save: the union of the
// document's pushes of that version since the last check began.
func (a *serverActor) ofCheck(uri string, version int32, hasVersion bool, diags []messages.Diagnostic) []messages.Diagnostic {
	if !a.checksOnSave() {
		return diags
	}
	prev, ok := a.check.pushed[uri]
	if ok && prev.version == version && prev.hasVersion == hasVersion {
		diags = dedup.Union(prev.diags, diags)
	}
	if a.check.pushed == nil {
		a.check.pushed = make(map[string]checkPush)
	}
	if ok || len(a.check.pushed) < maxCheckPushed {
		a.check.pushed[uri] = checkPush{version: version, hasVersion: hasVersion, diags: diags}
	}
	return diags
}
