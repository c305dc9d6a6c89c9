package diagnostics_test

import (
	"slices"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestBarrierStandsForATouch: a server that signals its diagnoses was not
// touched for a.go, because the touch of d.go, the last thing it was sent,
// stands for it (messages.Barrier). The answer about a.go waits until the
// server described d.go's touched version and its diagnosis begun after
// that touch ended; then what it published of a.go's version is the
// answer, errors that diagnosis added under the same version included. An
// older description of d.go, or a diagnosis begun before the touch, is no
// proof. Once both hold, the next file's answer comes at once.
func TestBarrierStandsForATouch(t *testing.T) {
	const dURI = "file:///r/d.go"
	const bURI = "file:///r/b.go"
	c := newClocked(t)
	progress := func(token, kind string, running int) *messages.Progress {
		return &messages.Progress{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, Token: token, Kind: kind,
			Title: "diagnosing changed files", Diagnosing: true, Diagnoses: running}
	}
	publishAt := func(uri string, version int32, msgs ...string) *messages.PublishedDiagnostics {
		p := publish(version, msgs...)
		p.URI = uri
		return p
	}
	c.send(progress("t0", "begin", 1)) // the server signals its diagnoses
	c.send(publish(1))
	c.send(publishAt(bURI, 1, "b is broken"))
	c.send(publishAt(dURI, 1))
	c.send(progress("t0", "end", 0))
	c.clock.Advance(time.Millisecond)

	barrier := &messages.Barrier{URI: dURI, Version: 2, SentAt: c.clock.Now()}
	ask := func(id uint64, uri string) {
		c.send(&messages.EditStarted{EditID: id, Session: "a", URI: uri, Current: true})
		c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: uri, Current: true,
			Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 1, SentAt: barrier.SentAt, Barrier: barrier}},
			WaitOptions: messages.WaitOptions{All: true, Settle: 100 * time.Millisecond, Timeout: time.Hour}})
	}
	ask(1, fakeURI)
	if c.released() {
		t.Fatal("answered before the server described the touch")
	}
	c.send(progress("t0", "end", 0)) // quiet, but nothing begun since the touch
	c.send(publishAt(dURI, 1))       // and the touched document's older version
	c.released()
	c.clock.Advance(time.Second) // past any settle window
	if c.released() {
		t.Fatal("answered from an older description of the touched document")
	}
	c.clock.Advance(time.Millisecond)
	c.send(progress("t1", "begin", 1))
	c.send(publishAt(dURI, 2))
	c.send(publish(1, "only in the windows build")) // the diagnosis changed a.go's errors, same version
	c.clock.Advance(time.Second)                    // past any settle window
	if c.released() {
		t.Fatal("answered while the diagnosis of the touch ran")
	}
	c.send(progress("t1", "end", 0))
	testenv.Eventually(t, 10*time.Second, "answered at the end of the diagnosis", c.released)
	r := <-c.results
	if r.Status != messages.StatusFresh || len(r.Files[0].Diagnostics) != 1 {
		t.Fatalf("answer %s %v, want fresh with the error the diagnosis added", r.Status, actortest.MessagesOf(r.Files[0]))
	}

	// The barrier passed: another file's answer comes at once.
	ask(2, bURI)
	if !c.released() {
		t.Fatal("the next file waited though the barrier had passed")
	}
	if r := <-c.results; r.Status != messages.StatusFresh || len(r.Files[0].Diagnostics) != 1 {
		t.Errorf("b's answer %s %v, want fresh with its error", r.Status, actortest.MessagesOf(r.Files[0]))
	}
}

// TestARepullWantsAPullAskedSince: a document pulled again instead of
// touched (ServerVersion.PullView) keeps its version; the answer waits
// for a pull asked at that view of the server or later. A pull of the
// same version asked before, or a push, may predate changes the call
// must see.
func TestARepullWantsAPullAskedSince(t *testing.T) {
	c := newClocked(t)
	pulled := func(view uint64, msgs ...string) *messages.PublishedDiagnostics {
		p := publish(1, msgs...)
		p.Pulled, p.View = true, view
		return p
	}
	c.send(pulled(3)) // version 1, asked at view 3
	c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI, Current: true})
	c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI, Current: true,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 1, SentAt: c.clock.Now(), PullView: 7}},
		WaitOptions: messages.WaitOptions{All: true, Settle: 100 * time.Millisecond, Timeout: time.Hour}})
	c.send(publish(1, "a push")) // a push of the version
	c.released()
	c.clock.Advance(time.Second)
	if c.released() {
		t.Fatal("answered from a pull asked before the view, or a push")
	}
	c.send(pulled(7, "broken by a change before the call"))
	testenv.Eventually(t, 10*time.Second, "answered with the pull asked since", c.released)
	if r := <-c.results; r.Status != messages.StatusFresh || !slices.Contains(actortest.MessagesOf(r.Files[0]), "broken by a change before the call") {
		t.Errorf("answer %s %v, want fresh with the new pull's error", r.Status, actortest.MessagesOf(r.Files[0]))
	}
}
