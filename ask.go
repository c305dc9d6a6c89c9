package agentlsp

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// replyProcess is a process in the actor registry whose only job is to
// hand one reply to a waiting call through a channel. Unlike a protoactor
// future it needs no goroutine, so a call abandoned by its context leaves
// nothing behind.
type replyProcess struct {
	ch chan any
}

func (p *replyProcess) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	select {
	case p.ch <- msg:
	default: // a second reply: there is none in our protocols
	}
}

func (p *replyProcess) SendSystemMessage(*actor.PID, any) {}
func (p *replyProcess) Stop(*actor.PID)                   {}

// ask sends msg to pid and waits for the reply, ctx, or Shutdown. cancel,
// if not nil, is sent to pid when ctx ends first, from the same sender (the
// router keys callers' ids by sender).
func (rt *Runtime) ask(ctx context.Context, pid *actor.PID, msg, cancel any) (any, error) {
	if rt.closing() {
		return nil, ErrShutdown
	}
	proc := &replyProcess{ch: make(chan any, 1)}
	reg := rt.sys.ProcessRegistry
	self, _ := reg.Add(proc, "reply"+reg.NextId())
	defer reg.Remove(self)
	rt.sys.Root.RequestWithCustomSender(pid, msg, self)
	select {
	case res := <-proc.ch:
		if _, dead := res.(*actor.DeadLetterResponse); dead {
			return nil, rt.undelivered(msg)
		}
		return res, nil
	case <-ctx.Done():
		if cancel != nil {
			rt.sys.Root.RequestWithCustomSender(pid, cancel, self)
		}
		return nil, rt.ctxErr(ctx)
	case <-rt.done:
		return nil, ErrShutdown
	}
}

// ctxErr is the error of a call whose ctx ended: ctx's, after why no
// daemon answered when this runtime's daemon is lost (ErrDaemonLost), so
// that a call that waited in vain for a daemon that cannot be started
// again does not say only that it timed out.
func (rt *Runtime) ctxErr(ctx context.Context) error {
	if rt.lost != nil {
		if lost := rt.lost(); lost != nil {
			return fmt.Errorf("%w: %w", lost, ctx.Err())
		}
	}
	return ctx.Err()
}

// nextID returns a request or edit id unique in the runtime.
func (rt *Runtime) nextID() uint64 { return rt.ids.Add(1) }

// cancelRequest is the message that abandons a request.
func cancelRequest(id uint64) *messages.Cancel { return &messages.Cancel{ID: id} }
