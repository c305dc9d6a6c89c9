package diagnostics_test

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/asynkron/protoactor-go/actor"
)

// The diagnostics actor on a fake clock: publishes are sent by the test,
// and time moves only when the test advances it, so the settle window and
// the timeout are checked exactly, whatever the machine's load.

var fakeSrv = messages.ServerKey{ServerID: "s", Root: "/r"}

const fakeURI = "file:///r/a.go"

func publish(version int32, msgs ...string) *messages.PublishedDiagnostics {
	p := &messages.PublishedDiagnostics{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI,
		Version: version, HasVersion: true}
	for _, m := range msgs {
		p.Diagnostics = append(p.Diagnostics, messages.Diagnostic{Message: m, Severity: messages.SeverityError})
	}
	return p
}

// clocked is the diagnostics actor on a fake clock, with a collector of
// the edit results it sends.
type clocked struct {
	h         *actortest.Harness
	clock     *lifecycle.FakeClock
	diag      *actor.PID
	collector *actor.PID
	results   chan *messages.EditResult
}

func newClocked(t *testing.T, logger ...*slog.Logger) *clocked {
	var cfg diagnostics.Config
	if len(logger) > 0 {
		cfg.Logger = logger[0]
	}
	return newClockedWith(t, cfg)
}

// newClockedWith is newClocked with cfg (its Clock is the fake one).
func newClockedWith(t *testing.T, cfg diagnostics.Config) *clocked {
	h := actortest.New(t)
	c := &clocked{h: h, clock: lifecycle.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		results: make(chan *messages.EditResult, 4)}
	cfg.Clock = c.clock
	c.diag = h.Sys.Root.Spawn(diagnostics.NewProps(cfg))
	h.Track(c.diag)
	c.collector = h.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *messages.EditResult:
			c.results <- m
		case *messages.GetDiagnostics: // a barrier: everything sent before is in
			ctx.Respond(true)
		}
	}))
	h.Track(c.collector)
	c.send(&messages.StateChanged{ServerID: "s", Root: "/r", State: messages.StateRunning})
	return c
}

func (c *clocked) send(m any) { c.h.Sys.Root.Send(c.diag, m) }

// await sends an AwaitEdit answered to the collector.
func (c *clocked) await(m *messages.AwaitEdit) {
	c.h.Sys.Root.RequestWithCustomSender(c.diag, m, c.collector)
}

// released reports whether a result came, once every earlier message was
// handled.
func (c *clocked) released() bool {
	c.h.Ask(c.diag, &messages.GetDiagnostics{})
	c.h.Ask(c.collector, &messages.GetDiagnostics{})
	return len(c.results) > 0
}

func TestSettleAndTimeoutOnFakeClock(t *testing.T) {
	c := newClocked(t)
	clock, send, await, released, results := c.clock, c.send, c.await, c.released, c.results
	send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI})
	await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
		WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Second}})
	send(publish(2, "phase one"))
	// The settle timer exists once the actor handled the publish.
	testenv.Eventually(t, 10*time.Second, "settle timer", func() bool { return clock.Pending() >= 2 })
	clock.Advance(60 * time.Millisecond)
	send(publish(2, "phase one", "phase two")) // a later phase extends the window
	released()
	clock.Advance(60 * time.Millisecond) // 120 ms: past the first window, not the extended one
	if released() {
		t.Fatal("released before the extended window ended")
	}
	clock.Advance(100 * time.Millisecond)
	testenv.Eventually(t, 10*time.Second, "edit released", released)
	r := <-results
	if r.Status != messages.StatusFresh || len(r.Files[0].Diagnostics) != 2 {
		t.Errorf("result = %s %v, want fresh with both phases", r.Status, actortest.MessagesOf(r.Files[0]))
	}

	// An edit nobody answers is released at its timeout: what is stored
	// describes version 2, so the answer is stale (never "timeout" as if
	// it were current) and says which version it describes.
	send(&messages.EditStarted{EditID: 2, Session: "a", URI: fakeURI})
	await(&messages.AwaitEdit{EditID: 2, Session: "a", URI: fakeURI,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 3}},
		WaitOptions: messages.WaitOptions{Timeout: time.Second}})
	if released() { // also: the wait and its timer are in place before time moves
		t.Fatal("released at once")
	}
	clock.Advance(999 * time.Millisecond)
	if released() {
		t.Fatal("released before its timeout")
	}
	clock.Advance(time.Millisecond)
	testenv.Eventually(t, 10*time.Second, "edit released at its timeout", released)
	if r := <-results; r.Status != messages.StatusStale || !strings.Contains(r.Files[0].Detail, "version 2 of the file, not version 3") {
		t.Errorf("unanswered edit = %s %q, want stale, describing version 2", r.Status, r.Files[0].Detail)
	}
}

// A server that says when its diagnosis of changes ends (gopls's
// "diagnosing" progress) needs no settle window: the end of the last
// diagnosis that began after the change completes the edit, whether it
// comes after the push or before it. One that began before the change
// says nothing about it: the settle window stands.
func TestDiagnosisEndCompletesAnEdit(t *testing.T) {
	c := newClocked(t)
	clock, send, released, results := c.clock, c.send, c.released, c.results
	progress := func(token, kind string, running int) *messages.Progress {
		return &messages.Progress{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, Token: token, Kind: kind,
			Title: "diagnosing changed files", Diagnosing: true, Diagnoses: running}
	}
	edit := func(id uint64, version int32) {
		send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
		c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI,
			Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: version, SentAt: clock.Now()}},
			WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Hour}})
	}

	// The push, then the end.
	edit(1, 2)
	clock.Advance(time.Millisecond)
	send(progress("t1", "begin", 1))
	send(publish(2, "e"))
	if released() {
		t.Fatal("released while the diagnosis runs")
	}
	send(progress("t1", "end", 0))
	if !released() {
		t.Fatal("not released when the diagnosis ended")
	}
	<-results

	// The end, then the push.
	clock.Advance(time.Second)
	edit(2, 3)
	clock.Advance(time.Millisecond)
	send(progress("t2", "begin", 1))
	send(progress("t2", "end", 0))
	send(publish(3, "e"))
	if !released() {
		t.Fatal("not released by a push after the diagnosis ended")
	}
	<-results

	// A diagnosis that began before the change: the settle window.
	clock.Advance(time.Second)
	send(progress("t3", "begin", 1))
	clock.Advance(time.Millisecond)
	edit(3, 4)
	send(publish(4, "e"))
	send(progress("t3", "end", 0))
	if released() {
		t.Fatal("released by the end of a diagnosis that began before the change")
	}
	clock.Advance(100 * time.Millisecond)
	testenv.Eventually(t, 10*time.Second, "released at the end of the settle window", released)
}

// TestNoAnswerWhileTheServerStillDiagnoses: a server that signals its
// diagnoses published the edit's version without its errors, then the
// errors once its diagnosis ended, after the settle window (gopls on
// golang.org/x/tools, 16 agents editing). The answer waits for the end.
func TestNoAnswerWhileTheServerStillDiagnoses(t *testing.T) {
	c := newClocked(t)
	progress := func(kind string, running int) *messages.Progress {
		return &messages.Progress{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, Token: "t", Kind: kind,
			Title: "diagnosing changed files", Diagnosing: true, Diagnoses: running}
	}
	c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI})
	c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 5, SentAt: c.clock.Now()}},
		WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Hour}})
	c.clock.Advance(time.Millisecond)
	c.send(publish(5)) // the version, without its errors yet
	c.clock.Advance(time.Millisecond)
	c.send(progress("begin", 1))
	c.released()
	c.clock.Advance(150 * time.Millisecond) // past the settle window
	if c.released() {
		t.Fatal("answered while the server still diagnosed the change, from a push without its errors")
	}
	c.send(publish(7, "after the load"))
	c.send(progress("end", 0))
	testenv.Eventually(t, 10*time.Second, "answered at the end of the diagnosis", c.released)
	if res := <-c.results; len(res.Files) == 0 || len(res.Files[0].Diagnostics) != 1 {
		t.Errorf("answer %+v, want the error published at the end", res.Files)
	}
}

// TestReleaseIsLoggedAtDebug: at debug level an answered edit is logged
// with what decided it: the version waited for and the push the store
// held.
func TestReleaseIsLoggedAtDebug(t *testing.T) {
	var buf testenv.Buffer
	c := newClocked(t, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI})
	c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2, SentAt: c.clock.Now()}},
		WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Hour}})
	c.send(publish(2, "e"))
	c.released() // the push is in
	c.clock.Advance(101 * time.Millisecond)
	testenv.Eventually(t, 10*time.Second, "released at the end of the settle window", c.released)
	if log := buf.String(); !strings.Contains(log, "edit answered") || !strings.Contains(log, "v2 sent") ||
		!strings.Contains(log, "push v2 (versioned true)") {
		t.Errorf("debug log lacks the answer's reasons:\n%s", log)
	}
}

// A server that crashed and is starting again: an answer that times out
// meanwhile names the crash (it is not "still starting", as if nothing
// happened), until the server publishes again.
func TestTimeoutAfterACrashNamesIt(t *testing.T) {
	c := newClocked(t)
	crash := &messages.StateChanged{ServerID: "s", Root: "/r", State: messages.StateError,
		Err: errors.New("server process exited: fatal: no config")}
	timedOut := func(id uint64) *messages.EditResult {
		c.send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
		c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI,
			Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: int32(id)}},
			WaitOptions: messages.WaitOptions{Timeout: time.Second}})
		if c.released() {
			t.Fatal("released at once")
		}
		c.clock.Advance(time.Second)
		testenv.Eventually(t, 10*time.Second, "released at its timeout", c.released)
		return <-c.results
	}
	for _, state := range []messages.ServerState{messages.StateError, messages.StateStarting, messages.StateRunning} {
		c.send(crash)
		if state != messages.StateError {
			c.send(&messages.StateChanged{ServerID: "s", Root: "/r", State: state})
		}
		r := timedOut(uint64(state) + 1)
		if r.Status != messages.StatusNotReady || !strings.Contains(r.Files[0].Detail, "fatal: no config") {
			t.Errorf("%s after a crash: answer %s %q, want not_ready naming the crash", state, r.Status, r.Files[0].Detail)
		}
	}
	c.send(publish(1)) // it serves again
	if r := timedOut(10); strings.Contains(r.Files[0].Detail, "crash") {
		t.Errorf("after a publish: answer %s %q still names the crash", r.Status, r.Files[0].Detail)
	}
}

// An error that appeared in another file while many changes overlapped the
// edit is reported as changed meanwhile, naming the first few changes and
// counting the rest: in a file of a language whose imports are read (Go)
// and in one whose are not (every change may reach it, and is counted at
// once past the names).
func TestMeanwhileNamesAFewChanges(t *testing.T) {
	for _, uri := range []string{"file:///r/b.go", "file:///r/b.txt"} {
		t.Run(uri, func(t *testing.T) { meanwhileNamesAFewChanges(t, uri) })
	}
}

func meanwhileNamesAFewChanges(t *testing.T, uri string) {
	c := newClocked(t)
	c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI})
	var changes []messages.FileChange
	for i := range maxNamed + 2 {
		changes = append(changes, messages.FileChange{Path: fmt.Sprintf("/r/disk%d.go", i)})
	}
	c.send(&messages.FilesChanged{Workspace: "/r", Changes: changes})
	other := publish(1, "broken meanwhile")
	other.URI = uri
	c.send(other)
	c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
		WaitOptions: messages.WaitOptions{Timeout: time.Second}})
	c.send(publish(2))
	c.released() // everything sent is handled, the timers are set
	c.clock.Advance(time.Second)
	testenv.Eventually(t, 10*time.Second, "edit released", c.released)
	r := <-c.results
	if len(r.Meanwhile) != 1 {
		t.Fatalf("meanwhile = %+v, want b.go", r.Meanwhile)
	}
	why := r.Meanwhile[0].ChangedBy
	if len(why) != maxNamed+1 || why[0] != "a change on disk to /r/disk0.go" || why[maxNamed] != "and 2 more changes" {
		t.Errorf("changed by %q, want %d changes named and 2 counted", why, maxNamed)
	}
}

// maxNamed is the diagnostics actor's bound on the changes named for one
// file.
const maxNamed = 4

// TestFreshAtTheTimeoutWhileDiagnosingSaysSo: the version's diagnostics
// came, but other changes kept the server diagnosing until the wait
// ended (agents editing on one gopls without pause): the answer is fresh
// and says that the server had not finished. One released at the end of
// the diagnosis says nothing.
func TestFreshAtTheTimeoutWhileDiagnosingSaysSo(t *testing.T) {
	c := newClocked(t)
	progress := func(kind string, running int) *messages.Progress {
		return &messages.Progress{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, Token: "t", Kind: kind,
			Title: "diagnosing changed files", Diagnosing: true, Diagnoses: running}
	}
	edit := func(id uint64, version int32) {
		c.send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
		c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI,
			Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: version, SentAt: c.clock.Now()}},
			WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Second}})
		c.clock.Advance(time.Millisecond)
	}
	edit(1, 5)
	c.send(progress("begin", 1))
	c.send(publish(7, "after the load"))
	c.released()
	c.clock.Advance(time.Second) // still diagnosing at the timeout
	testenv.Eventually(t, 10*time.Second, "answered at the timeout", c.released)
	res := <-c.results
	if res.Status != messages.StatusFresh || !strings.Contains(res.Files[0].Detail, "still diagnosing") {
		t.Errorf("answer %s %q, want fresh, saying the server was still diagnosing", res.Status, res.Files[0].Detail)
	}

	c.send(progress("end", 0))
	edit(2, 6)
	c.send(progress("begin", 1))
	c.send(publish(6, "e"))
	c.send(progress("end", 0))
	testenv.Eventually(t, 10*time.Second, "answered at the end of the diagnosis", c.released)
	if res := <-c.results; res.Status != messages.StatusFresh || res.Files[0].Detail != "" {
		t.Errorf("answer %s %q, want fresh with no note", res.Status, res.Files[0].Detail)
	}
}

// TestWorkingTimeoutWaitsForTheServersWork: past its timeout, an edit with
// a WorkingTimeout waits while its server says it is at work (a load,
// then a diagnosis begun after the change), and is answered fresh when
// that work ends with the change described (or the version's pull is
// answered); it never waits past the WorkingTimeout, nor for a server that
// says nothing.
func TestWorkingTimeoutWaitsForTheServersWork(t *testing.T) {
	c := newClocked(t)
	progress := func(token, title, kind string, diagnosing bool, running int) *messages.Progress {
		return &messages.Progress{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, Token: token, Kind: kind,
			Title: title, Active: kind != "end", Diagnosing: diagnosing, Diagnoses: running}
	}
	edit := func(id uint64, version int32) {
		c.send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
		c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI,
			Servers: []messages.ServerVersion{{ServerKey: fakeSrv, Version: version, SentAt: c.clock.Now()}},
			WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Second,
				WorkingTimeout: time.Minute}})
		c.released()
		c.clock.Advance(time.Millisecond)
	}

	// A cold server: it loads its workspace, then diagnoses, for longer
	// than the timeout.
	edit(1, 1)
	c.send(progress("load", "Setting up workspace", "begin", false, 0))
	c.clock.Advance(time.Second)
	if c.released() {
		t.Fatal("answered at the timeout while the server loaded its workspace")
	}
	c.send(progress("load", "", "end", false, 0))
	c.send(progress("diag", "diagnosing opened files", "begin", true, 1))
	for range 8 { // 2 s more of diagnosis
		c.clock.Advance(diagnostics.WorkingPoll)
		if c.released() {
			t.Fatal("answered while the server was diagnosing the change")
		}
	}
	c.send(publish(1, "e"))
	c.send(progress("diag", "", "end", true, 0))
	testenv.Eventually(t, 10*time.Second, "answered at the end of the diagnosis", c.released)
	if res := <-c.results; res.Status != messages.StatusFresh || res.Files[0].Detail != "" ||
		len(res.Files[0].Diagnostics) != 1 {
		t.Errorf("answer %s %q %v, want fresh with the error and no note", res.Status, res.Files[0].Detail,
			actortest.MessagesOf(res.Files[0]))
	}

	// A server that is at work for longer than the WorkingTimeout: the
	// answer comes at that bound, and says it timed out.
	edit(2, 2)
	c.send(progress("diag", "diagnosing changed files", "begin", true, 1))
	for range 300 { // a minute, in steps no timer of the wait can skip
		c.clock.Advance(diagnostics.WorkingPoll)
		if c.released() {
			break
		}
	}
	if !c.released() {
		t.Fatal("not answered at the WorkingTimeout")
	}
	if res := <-c.results; res.Status == messages.StatusFresh || !strings.Contains(res.Files[0].Detail, "timed out after 1m0") {
		t.Errorf("answer %s %q, want not fresh, timed out after 1m0s", res.Status, res.Files[0].Detail)
	}
	c.send(progress("diag", "", "end", true, 0))

	// A server asked for the version's diagnostics by a pull (it offers
	// pull diagnostics): until the pull's answer, it is at work on them.
	c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI, Version: 4, Pulls: true})
	edit(4, 4)
	c.clock.Advance(time.Second)
	if c.released() {
		t.Fatal("answered at the timeout while the server had the version's pull")
	}
	pulled := publish(4, "pulled")
	pulled.Pulled = true
	c.send(pulled)
	testenv.Eventually(t, 10*time.Second, "answered with the pull", c.released)
	if res := <-c.results; res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 {
		t.Errorf("answer %s %q %v, want fresh with the pulled error", res.Status, res.Files[0].Detail,
			actortest.MessagesOf(res.Files[0]))
	}
	c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI, Version: 5})

	// A server that says it is at work on nothing: the timeout stands.
	edit(3, 6)
	c.clock.Advance(time.Second)
	testenv.Eventually(t, 10*time.Second, "answered at the timeout", c.released)
	// 1s or 1.001s: the edit starts before or after the clock's step
	// that follows it, as the actor takes its messages.
	if res := <-c.results; res.Status != messages.StatusStale || !timedOutAfterASecond.MatchString(res.Files[0].Detail) {
		t.Errorf("answer %s %q, want stale at the timeout", res.Status, res.Files[0].Detail)
	}

	// A load that ends past the timeout, and the diagnosis that begins only
	// some polls later (gopls: 0.2-0.4 s after the end of its load on a
	// loaded machine): the wait goes on through the gap.
	edit(5, 7)
	c.send(progress("load", "Setting up workspace", "begin", false, 0))
	c.clock.Advance(2 * time.Second)
	c.send(progress("load", "", "end", false, 0))
	for range 3 {
		c.clock.Advance(diagnostics.WorkingPoll)
		if c.released() {
			t.Fatal("answered in the gap between the end of the load and the diagnosis")
		}
	}
	c.send(progress("diag", "diagnosing opened files", "begin", true, 1))
	c.send(publish(7, "after the load"))
	c.send(progress("diag", "", "end", true, 0))
	testenv.Eventually(t, 10*time.Second, "answered at the end of the diagnosis after the load", c.released)
	if res := <-c.results; res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 {
		t.Errorf("answer %s %q, want fresh with the error", res.Status, res.Files[0].Detail)
	}

	// A load that ends and nothing after it: the server gets its timeout
	// again from the end of its load, not longer.
	edit(6, 8)
	c.send(progress("load", "Setting up workspace", "begin", false, 0))
	c.clock.Advance(2 * time.Second)
	c.send(progress("load", "", "end", false, 0))
	for range 8 { // 2 s: twice the timeout
		c.clock.Advance(diagnostics.WorkingPoll)
		if c.released() {
			break
		}
	}
	if !c.released() {
		t.Fatal("not answered a timeout after the end of the load")
	}
	if res := <-c.results; res.Status == messages.StatusFresh || !strings.Contains(res.Files[0].Detail, "timed out") {
		t.Errorf("answer %s %q, want not fresh, timed out", res.Status, res.Files[0].Detail)
	}
}

// timedOutAfterASecond matches an answer's note of a timeout of 1s (the
// clock may have stepped 1 ms past it).
var timedOutAfterASecond = regexp.MustCompile(`timed out after 1(\.00\d)?s\b`)
