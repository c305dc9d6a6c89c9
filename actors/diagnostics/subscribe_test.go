package diagnostics_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// TestSubscriptionOnFakeClock: a subscriber gets a batch once the batch
// delay passed, the next only after its ack, and none after it
// unsubscribed; sessions that never subscribed get none (each publication
// is checked against the subscribed sessions only).
func TestSubscriptionOnFakeClock(t *testing.T) {
	c := newClocked(t)
	batches := make(chan *messages.DiagnosticBatch, 8)
	sub := c.h.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *messages.DiagnosticBatch:
			batches <- m
		case *messages.GetDiagnostics: // a barrier
			ctx.Respond(true)
		}
	}))
	c.h.Track(sub)
	for i := range 50 { // sessions that never subscribe
		c.send(&messages.EditStarted{EditID: uint64(100 + i), Session: fmt.Sprintf("quiet-%d", i), URI: fakeURI})
	}
	c.h.Sys.Root.RequestWithCustomSender(c.diag, &messages.Subscribe{Session: "watcher"}, sub)
	// advance moves the clock once the actor handled every message sent
	// before (its timers are set by then).
	advance := func(d time.Duration) {
		c.h.Ask(c.diag, &messages.GetDiagnostics{})
		c.clock.Advance(d)
	}
	got := func() []*messages.DiagnosticBatch {
		t.Helper()
		c.h.Ask(c.diag, &messages.GetDiagnostics{})
		c.h.Ask(sub, &messages.GetDiagnostics{})
		var out []*messages.DiagnosticBatch
		for len(batches) > 0 {
			out = append(out, <-batches)
		}
		return out
	}
	c.send(publish(1, "first"))
	if b := got(); len(b) != 0 {
		t.Fatalf("batch before the batch delay: %+v", b)
	}
	advance(100 * time.Millisecond)
	b := got()
	if len(b) != 1 || b[0].Session != "watcher" || len(b[0].Files) != 1 || len(b[0].Files[0].Diagnostics) != 1 {
		t.Fatalf("after the batch delay: batches %+v, want one for watcher with the one diagnostic", b)
	}
	c.send(publish(2, "second"))
	advance(100 * time.Millisecond)
	if b := got(); len(b) != 0 {
		t.Fatalf("a second batch before the first was acked: %+v", b)
	}
	c.send(&messages.BatchAck{Session: "watcher"})
	advance(100 * time.Millisecond)
	if b := got(); len(b) != 1 {
		t.Fatalf("after the ack: %d batches, want the one with what changed meanwhile", len(b))
	}
	c.send(&messages.BatchAck{Session: "watcher"})
	c.send(&messages.Unsubscribe{Session: "watcher"})
	c.send(publish(3, "third"))
	advance(time.Second)
	if b := got(); len(b) != 0 {
		t.Errorf("a batch after Unsubscribe: %+v", b)
	}
}
