// Package subscriber is the actor behind a session's passive diagnostics
// channel (agentlsp.Session.Batches): it subscribes the session to the
// diagnostics actor and puts each batch on a bounded channel, and
// acknowledges a batch only once the channel took it, so while the
// consumer is slow the diagnostics actor sends nothing more and merges
// what is new (within its caps): nothing grows, nothing blocks.
//
// The actor owns no goroutine; a batch the channel cannot take is offered
// again by a timer (stopped when the actor stops). It closes the channel
// when it stops.
package subscriber

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// retryInterval is how soon a batch the channel could not take is offered
// again.
const retryInterval = 50 * time.Millisecond

// Props returns the props of a subscriber: it sends sub (the session and
// its filter) to diag as a request, puts batches (with Path filled in) on
// ch, and closes ch when it stops.
func Props(diag *actor.PID, sub *messages.Subscribe, ch chan messages.DiagnosticBatch) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &subscriber{diag: diag, session: sub.Session, sub: sub, ch: ch}
	})
}

// subscriber is the actor behind a session's Batches channel.
type subscriber struct {
	diag    *actor.PID
	session string
	sub     *messages.Subscribe
	ch      chan messages.DiagnosticBatch
	held    *messages.DiagnosticBatch // waiting for room on ch
	retry   *time.Timer
}

type retryHeld struct{}

// Receive never blocks: a batch the channel cannot take now is held and
// offered again shortly.
func (a *subscriber) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		ctx.Request(a.diag, a.sub)
	case *messages.DiagnosticBatch:
		a.held = m
		a.offer(ctx)
	case *retryHeld:
		a.offer(ctx)
	case *actor.Stopping:
		if a.retry != nil {
			a.retry.Stop()
		}
		ctx.Send(a.diag, &messages.Unsubscribe{Session: a.session})
	case *actor.Stopped:
		close(a.ch)
	}
}

func (a *subscriber) offer(ctx actor.Context) {
	if a.held == nil {
		return
	}
	for i := range a.held.Files {
		a.held.Files[i].Path = paths.FromURI(a.held.Files[i].URI)
	}
	select {
	case a.ch <- *a.held:
		a.held = nil
		ctx.Send(a.diag, &messages.BatchAck{Session: a.session})
	default:
		root, self := ctx.ActorSystem().Root, ctx.Self()
		a.retry = time.AfterFunc(retryInterval, func() { root.Send(self, &retryHeld{}) })
	}
}
