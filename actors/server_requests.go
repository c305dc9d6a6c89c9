package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// maxContentModifiedRetries is how often a ContentModified answer is retried.
const maxContentModifiedRetries = 3

// call is one request the actor answers: queued until the server runs, or
// sent and in flight.
type call struct {
	req      *messages.Request
	sender   *actor.PID
	deadline time.Time
	cancel   context.CancelFunc // nil while queued
	sent     bool
	attempt  int // ContentModified retries done
}

// Private messages about calls.
type (
	callDone struct {
		inc     int
		id      uint64
		attempt int
		result  json.RawMessage
		err     error
	}
	callRetry   struct{ id uint64 }
	callExpired struct{ id uint64 }
)

// waitingFactor bounds the requests waiting for a free slot: at most
// InFlight() in flight and (waitingFactor-1) x InFlight() waiting, each
// with its own deadline; beyond that, ErrOverloaded at once.
const waitingFactor = 4

// onRequest accepts a request: answered at once when the server is broken,
// does not offer the method, or is overloaded; otherwise sent when the
// server runs and has a free slot, waiting in arrival order (with its
// deadline) until then.
func (a *serverActor) onRequest(ctx actor.Context, r *messages.Request) {
	sender := ctx.Sender()
	if len(a.calls) >= waitingFactor*a.cfg.Server.InFlight() {
		a.reply(ctx, sender, r.ID, nil, a.serverError(messages.ErrOverloaded,
			fmt.Errorf("%d requests in flight and %d waiting", a.inflight, len(a.calls)-a.inflight), nil))
		return
	}
	if _, dup := a.calls[r.ID]; dup {
		a.reply(ctx, sender, r.ID, nil, errors.New("agentlsp: duplicate request id"))
		return
	}
	if a.broken && !a.retryBroken(ctx) {
		a.reply(ctx, sender, r.ID, nil, a.lastErr)
		return
	}
	if why := a.unsupported(r.Method); a.state == messages.StateRunning && why != "" {
		a.reply(ctx, sender, r.ID, nil, a.serverError(messages.ErrUnsupported, errors.New(why), nil))
		return
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = a.cfg.Server.Request()
	}
	a.calls[r.ID] = &call{req: r, sender: sender, deadline: a.cfg.Now().Add(timeout)}
	a.waiting = append(a.waiting, r.ID)
	a.sendWaiting(ctx)
	if c := a.calls[r.ID]; c != nil && !c.sent {
		a.after(ctx, timeout, &callExpired{id: r.ID})
	}
}

// sendWaiting sends waiting calls, oldest first, while the server runs and
// has free slots.
func (a *serverActor) sendWaiting(ctx actor.Context) {
	for a.running() && a.inflight < a.cfg.Server.InFlight() && len(a.waiting) > 0 {
		id := a.waiting[0]
		a.waiting = a.waiting[1:]
		if c, ok := a.calls[id]; ok && !c.sent {
			a.dispatch(ctx, c)
		}
	}
	if len(a.waiting) == 0 {
		a.waiting = nil // let the backing array go
	}
}

// dispatch sends a call on the running connection.
func (a *serverActor) dispatch(ctx actor.Context, c *call) {
	conn := a.inc.connection()
	remaining := time.Until(c.deadline)
	if remaining <= 0 {
		a.finish(ctx, c, nil, a.serverError(messages.ErrRequestTimeout, nil, nil))
		return
	}
	callCtx, cancel := context.WithTimeout(context.Background(), remaining)
	c.cancel, c.sent = cancel, true
	a.inflight++
	send, inc, id, attempt := a.send(ctx), a.inc.n, c.req.ID, c.attempt
	conn.Go(callCtx, c.req.Method, c.req.Params, func(res json.RawMessage, err error) {
		send(&callDone{inc: inc, id: id, attempt: attempt, result: res, err: err})
	})
}

func (a *serverActor) onCallDone(ctx actor.Context, m *callDone) {
	c, ok := a.calls[m.id]
	if !ok || !c.sent || c.attempt != m.attempt {
		return
	}
	var rpcErr *messages.RPCError
	if errors.As(m.err, &rpcErr) && rpcErr.Code == messages.CodeContentModified && c.attempt < maxContentModifiedRetries {
		delay := a.cfg.RetryBackoff << c.attempt
		if a.cfg.Now().Add(delay).Before(c.deadline) {
			c.cancel()
			c.cancel, c.sent = nil, false
			a.inflight--
			c.attempt++
			a.after(ctx, delay, &callRetry{id: m.id})
			return
		}
	}
	err := m.err
	if err != nil && !isClientSide(err) && rpcErr == nil {
		// The connection ended under the call: the server crashed.
		var stderr []string
		if a.inc != nil && a.inc.n == m.inc {
			if conn := a.inc.connection(); conn != nil {
				stderr = conn.StderrTail()
			}
		}
		err = a.serverError(messages.ErrServerCrashed, err, stderr)
	}
	a.finish(ctx, c, m.result, err)
}

// isClientSide reports errors that are about the request, not the server.
func isClientSide(err error) bool {
	return errors.Is(err, messages.ErrRequestTimeout) || errors.Is(err, messages.ErrCanceled)
}

func (a *serverActor) onCallRetry(ctx actor.Context, m *callRetry) {
	c, ok := a.calls[m.id]
	if !ok || c.sent {
		return
	}
	a.waiting = append([]uint64{m.id}, a.waiting...) // first in line
	a.sendWaiting(ctx)
}

// onCallExpired answers a call that is still queued when its time is up.
func (a *serverActor) onCallExpired(ctx actor.Context, m *callExpired) {
	c, ok := a.calls[m.id]
	if !ok || c.sent {
		return
	}
	kind := messages.ErrRequestTimeout
	if a.state == messages.StateStarting {
		kind = messages.ErrStartupTimeout
	}
	a.finish(ctx, c, nil, a.serverError(kind, errors.New("the server was not running in time"), nil))
}

// onCancel abandons a call: a sent one is cancelled on the wire (the
// transport sends $/cancelRequest and the answer arrives as callDone); a
// queued one is answered now.
func (a *serverActor) onCancel(ctx actor.Context, m *messages.Cancel) {
	c, ok := a.calls[m.ID]
	if !ok {
		return
	}
	if c.sent {
		c.cancel()
		return
	}
	a.finish(ctx, c, nil, messages.ErrCanceled)
}

// finish answers a call, forgets it, and gives its slot to a waiting one.
func (a *serverActor) finish(ctx actor.Context, c *call, result json.RawMessage, err error) {
	delete(a.calls, c.req.ID)
	if c.sent {
		a.inflight--
	}
	if c.cancel != nil {
		c.cancel()
	}
	a.reply(ctx, c.sender, c.req.ID, result, err)
	a.sendWaiting(ctx)
	a.scheduleIdle(ctx)
}

func (a *serverActor) reply(ctx actor.Context, to *actor.PID, id uint64, result json.RawMessage, err error) {
	if to == nil {
		return
	}
	resp := &messages.Response{ID: id, ServerID: a.cfg.Server.ID, Err: err, Indexing: a.indexing()}
	if err == nil {
		resp.Result = result
	}
	ctx.Send(to, resp)
}

// failAll answers every pending call with err (none is sent meanwhile).
func (a *serverActor) failAll(ctx actor.Context, err error) {
	a.waiting = nil
	for _, c := range a.calls {
		a.finish(ctx, c, nil, err)
	}
}
