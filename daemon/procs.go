package daemon

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// Processes in the client's actor registry that are not actors: no
// mailbox, no goroutine; each runs on the goroutine that sends to it.

// replied tells the link that a call got its reply.
type replied struct{ seq uint64 }

// undelivered tells the link that a call could not reach the daemon.
type undelivered struct{ seq uint64 }

// viaDiag wraps a message sent to the client's diagnostics PID, so the
// link forwards it to the daemon's diagnostics actor.
type viaDiag struct{ msg any }

// replyProc receives the reply to one call the link sent to the daemon,
// delivers it (identifiers back in the client's space) straight to the
// caller, and tells the link. A second reply (the call was sent again
// after the daemon went) is dropped; an Edit's EditApplied comes before
// its reply.
type replyProc struct {
	sys     *actor.ActorSystem
	link    *actor.PID
	seq     uint64
	caller  *actor.PID
	ns      atomic.Pointer[namespace] // the namespace the call was last sent in
	done    atomic.Bool
	applied atomic.Bool // an Edit's EditApplied went to the caller
}

func (p *replyProc) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	if _, dead := msg.(*actor.DeadLetterResponse); dead {
		p.sys.Root.Send(p.link, &undelivered{seq: p.seq})
		return
	}
	if _, ok := msg.(*messages.EditApplied); ok {
		// An Edit's first reply: the caller gets it once (an Edit sent
		// again to the next daemon is applied again), and waits on.
		if p.caller != nil && p.applied.CompareAndSwap(false, true) {
			p.sys.Root.Send(p.caller, p.in(msg))
		}
		return
	}
	if !p.done.CompareAndSwap(false, true) {
		return
	}
	msg = p.in(msg)
	if p.caller == nil { // the link's own call
		p.sys.Root.Send(p.link, &internalReply{seq: p.seq, msg: msg})
		return
	}
	p.sys.Root.Send(p.caller, msg)
	p.sys.Root.Send(p.link, &replied{seq: p.seq})
}

// in takes a reply's identifiers back to the client's space.
func (p *replyProc) in(msg any) any {
	if ns := p.ns.Load(); ns != nil {
		return ns.in(msg)
	}
	return msg
}

func (p *replyProc) SendSystemMessage(*actor.PID, any) {}
func (p *replyProc) Stop(*actor.PID)                   {}

// relay receives a session's diagnostic batches from the daemon and
// hands them to the session's subscriber actor.
type relay struct {
	sys        *actor.ActorSystem
	pid        *actor.PID
	subscriber *actor.PID
	ns         atomic.Pointer[namespace]
}

func (r *relay) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	if _, dead := msg.(*actor.DeadLetterResponse); dead {
		return
	}
	if ns := r.ns.Load(); ns != nil {
		msg = ns.in(msg)
	}
	r.sys.Root.Send(r.subscriber, msg)
}

func (r *relay) SendSystemMessage(*actor.PID, any) {}
func (r *relay) Stop(*actor.PID)                   {}

// diagProc is the client's diagnostics PID: it puts what it gets into the
// link's mailbox, in order with what goes to the link directly (an
// EditStarted reaches the daemon before the change that follows it).
type diagProc struct {
	sys  *actor.ActorSystem
	link *actor.PID
}

func (p *diagProc) SendUserMessage(_ *actor.PID, message any) {
	env := &actor.MessageEnvelope{Message: &viaDiag{msg: message}}
	if e, ok := message.(*actor.MessageEnvelope); ok {
		c := *e
		c.Message = &viaDiag{msg: e.Message}
		env = &c
	}
	if ref, ok := p.sys.ProcessRegistry.Get(p.link); ok {
		ref.SendUserMessage(p.link, env)
	}
}

// SendSystemMessage answers a Watch (StopFuture) at once: the process
// ends when it is stopped.
func (p *diagProc) SendSystemMessage(pid *actor.PID, message any) {
	if w, ok := message.(*actor.Watch); ok {
		if ref, ok := p.sys.ProcessRegistry.Get(w.Watcher); ok {
			ref.SendSystemMessage(w.Watcher, &actor.Terminated{Who: pid})
		}
	}
}

func (p *diagProc) Stop(pid *actor.PID) { p.sys.ProcessRegistry.Remove(pid) }
