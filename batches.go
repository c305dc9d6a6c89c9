package agentlsp

import (
	"path/filepath"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// batchBuffer is how many batches a session's channel holds.
const batchBuffer = 16

// subscription is a session's passive diagnostics: an actor that takes
// batches from the diagnostics actor and puts them on a bounded channel.
// It acknowledges a batch only once the channel took it, so while the
// consumer is slow the diagnostics actor sends nothing more and merges what
// is new (within its caps): nothing grows, nothing blocks.
type subscription struct {
	ch  chan messages.DiagnosticBatch
	pid *actor.PID
}

// BatchOption narrows a subscription.
type BatchOption func(*messages.Subscribe)

// Under narrows the batches to files under these paths (relative to the
// workspace or absolute).
func Under(dirs ...string) BatchOption {
	return func(m *messages.Subscribe) { m.Prefixes = append(m.Prefixes, dirs...) }
}

// OwnFiles narrows the batches to the files this session edited or asked
// about.
func OwnFiles() BatchOption { return func(m *messages.Subscribe) { m.Own = true } }

// Batches returns the session's passive diagnostic batches: what is new to
// this session, at most 10 diagnostics per file and 30 per batch, errors
// first, each diagnostic delivered once; by default about every file of
// the workspace, narrowed by Under and OwnFiles. The channel is closed
// when the session ends or the runtime shuts down. The first call
// subscribes (its options hold for the session's subscription).
func (s *Session) Batches(opts ...BatchOption) <-chan messages.DiagnosticBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sub == nil {
		sub := &messages.Subscribe{Session: s.id}
		for _, o := range opts {
			o(sub)
		}
		for i, p := range sub.Prefixes {
			if !filepath.IsAbs(p) {
				sub.Prefixes[i] = filepath.Join(s.rt.workspace, p)
			}
		}
		ch := make(chan messages.DiagnosticBatch, batchBuffer)
		if s.rt.closing() {
			close(ch)
			return ch
		}
		s.sub = &subscription{ch: ch}
		rt, id := s.rt, s.id
		s.sub.pid = rt.sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
			return &subscriber{diag: rt.diag, session: id, sub: sub, ch: ch}
		}))
	}
	return s.sub.ch
}

// stop ends the subscription (its actor closes the channel).
func (s *Session) stop() {
	s.mu.Lock()
	sub := s.sub
	s.mu.Unlock()
	if sub != nil {
		_ = s.rt.sys.Root.StopFuture(sub.pid).Wait()
	}
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
		a.retry = time.AfterFunc(50*time.Millisecond, func() { root.Send(self, &retryHeld{}) })
	}
}
