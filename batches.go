package agentlsp

import (
	"path/filepath"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/subscriber"
	"github.com/agentlsp/agentlsp/messages"
)

// batchBuffer is how many batches a session's channel holds.
const batchBuffer = 16

// subscription is a session's passive diagnostics: an actor (package
// actors/subscriber) that takes batches from the diagnostics actor and
// puts them on a bounded channel.
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
		s.sub.pid = s.rt.sys.Root.Spawn(subscriber.Props(s.rt.diag, sub, ch))
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
