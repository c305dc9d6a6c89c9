package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/server/calls"
	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/messages"
)

// maxContentModifiedRetries is how often a ContentModified answer is retried.
const maxContentModifiedRetries = 3

// pending is what the actor keeps of a call besides the queue's own: the
// request and who waits for it, or the pull it is; the cancel function of
// the call in flight.
type pending struct {
	req    *messages.Request
	sender *actor.PID
	pull   *pulls.Request // set for the actor's own pull-diagnostics calls
	// crashes counts the server's crashes the call was sent into: the
	// first holds it for the next incarnation, the second answers it.
	crashes int
	cancel  context.CancelFunc
	took    time.Duration // the server's own time for the attempt answered
	// held is the answer given while the server worked, kept while the
	// request waits to be sent again (indexwait.go); heldSince is when an
	// answer of it was first held, which bounds its sending again.
	held      *heldAnswer
	heldSince time.Time
	// works is the server's count of work begun (serverActor.works) when
	// the request was sent, inWork whether work was in progress then: an
	// answer is about a project the server was loading if either changed.
	works  uint64
	inWork bool
	// checks and inCheck are the same for the server's checks on save
	// (savecheck.go), which hold pulls only.
	checks  uint64
	inCheck bool
}

// Private messages about calls.
type (
	callDone struct {
		gen     int
		id      uint64
		attempt int
		result  json.RawMessage
		err     error
		took    time.Duration // from handing the request to the connection to its answer
	}
	callRetry   struct{ id uint64 }
	callExpired struct{ id uint64 }
)

func pendingOf(c *calls.Call) *pending { return c.Data.(*pending) }

// onRequest accepts a request: answered at once when the server is broken,
// does not offer the method, or is overloaded; otherwise sent when the
// server runs and has a free slot, waiting in arrival order (with its
// deadline) until then.
func (a *serverActor) onRequest(ctx actor.Context, r *messages.Request) {
	sender := ctx.Sender()
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
		timeout = a.lim.RequestTimeout
	}
	if err := a.enqueue(r.ID, timeout, &pending{req: r, sender: sender}); err != nil {
		a.reply(ctx, sender, r.ID, nil, err)
		return
	}
	a.dispatchWaiting(ctx)
	if c := a.calls.Get(r.ID); c != nil && c.State == calls.Waiting {
		a.timers.After(timeout, &callExpired{id: r.ID})
	}
}

// enqueue holds a call; the error is what its requester is answered when
// the queue refuses it.
func (a *serverActor) enqueue(id uint64, timeout time.Duration, p *pending) error {
	_, err := a.calls.Add(id, a.cfg.Clock.Now().Add(timeout), p)
	switch {
	case errors.Is(err, calls.ErrFull):
		return a.serverError(messages.ErrOverloaded, fmt.Errorf("%d requests in flight and %d waiting",
			a.calls.InFlight(), a.calls.Len()-a.calls.InFlight()), nil)
	case errors.Is(err, calls.ErrDuplicate):
		return errors.New("agentlsp: duplicate request id")
	}
	return nil
}

// dispatchWaiting sends waiting calls, oldest first, while the server runs
// and has free slots.
func (a *serverActor) dispatchWaiting(ctx actor.Context) {
	for a.running() {
		c := a.calls.Next()
		if c == nil {
			return
		}
		a.dispatch(ctx, c)
	}
}

// dispatch sends a call on the running connection.
func (a *serverActor) dispatch(ctx actor.Context, c *calls.Call) {
	p := pendingOf(c)
	if a.holdUntilReady(p, c.ID) {
		return
	}
	remaining := c.Deadline.Sub(a.cfg.Clock.Now())
	if remaining <= 0 {
		a.finish(ctx, c.ID, nil, a.serverError(messages.ErrRequestTimeout, nil, nil))
		return
	}
	callCtx, cancel := context.WithTimeout(context.Background(), remaining)
	p.cancel = cancel
	p.works, p.inWork = a.works, a.indexing()
	p.checks, p.inCheck = a.check.begun, a.checking()
	send, gen, id, attempt := a.sendSelf(ctx), a.inc.gen, c.ID, c.Attempt
	method, params := a.method(p)
	start := time.Now() // the server's own time, not the actor's clock
	a.inc.connection().Go(callCtx, method, params, func(res json.RawMessage, err error) {
		send(&callDone{gen: gen, id: id, attempt: attempt, result: res, err: err, took: time.Since(start)})
	})
}

// method is the LSP method and params of a call.
func (a *serverActor) method(p *pending) (string, any) {
	if p.pull != nil && a.caps.tsserver {
		return tsserverPull(p.pull)
	}
	if p.pull != nil {
		return pullMethod, pullParams(p.pull)
	}
	return p.req.Method, p.req.Params
}

func (a *serverActor) onCallDone(ctx actor.Context, m *callDone) {
	c := a.calls.Get(m.id)
	if c == nil || c.State != calls.InFlight || c.Attempt != m.attempt || !a.current(m.gen) {
		return
	}
	var rpcErr *messages.RPCError
	modified := errors.As(m.err, &rpcErr) && rpcErr.Code == messages.CodeContentModified
	if a.holdForIndex(c, m, modified) {
		a.dispatchWaiting(ctx) // the slot it held is free
		return
	}
	if modified && c.Attempt < maxContentModifiedRetries {
		delay := a.cfg.RetryBackoff << c.Attempt
		if a.cfg.Clock.Now().Add(delay).Before(c.Deadline) {
			pendingOf(c).cancel()
			a.calls.Retry(m.id)
			a.timers.After(delay, &callRetry{id: m.id})
			a.dispatchWaiting(ctx) // the slot it held is free
			return
		}
	}
	p, err := pendingOf(c), m.err
	switch {
	case err != nil && !isClientSide(err) && rpcErr == nil: // the connection ended under the call: a crash
		if p.pull == nil && p.crashes == 0 {
			// Held for the next incarnation (holdForRestart), unless the
			// server turns out broken.
			p.crashes++
			p.cancel()
			a.calls.Retry(m.id)
			a.expireAt(m.id, c.Deadline) // it waits now: sent, it had only its context
			return
		}
		var stderr []string
		if conn := a.inc.connection(); conn != nil {
			stderr = conn.StderrTail()
		}
		err = a.serverError(messages.ErrServerCrashed, err, stderr)
	case rpcErr != nil && p.pull == nil:
		// Name who refused what: "method not found" alone, among several
		// servers' answers, said neither.
		err = fmt.Errorf("%s: %s: %w", a.cfg.Server.ID, p.req.Method, err)
	}
	p.took = m.took
	a.finish(ctx, m.id, m.result, err)
}

// isClientSide reports errors that are about the request, not the server.
func isClientSide(err error) bool {
	return errors.Is(err, messages.ErrRequestTimeout) || errors.Is(err, messages.ErrCanceled)
}

func (a *serverActor) onCallRetry(ctx actor.Context, m *callRetry) {
	a.calls.Requeue(m.id)
	a.dispatchWaiting(ctx)
}

// onCallExpired answers a call that is still waiting when its time is up.
func (a *serverActor) onCallExpired(ctx actor.Context, m *callExpired) {
	c := a.calls.Get(m.id)
	if c == nil || c.State != calls.Waiting {
		return
	}
	kind := messages.ErrRequestTimeout
	if a.state == messages.StateStarting {
		kind = messages.ErrStartupTimeout
	}
	a.finish(ctx, m.id, nil, a.notRunningInTime(kind))
}

// notRunningInTime is the error of a call whose time ran out before the
// server ran, with the server's last failure since it last ran (exit
// status and last stderr lines), when it crashed or failed to start
// meanwhile: a server that crashes at start, with a startupTimeout shorter
// than its restarts take to be called broken, answered "not running in
// time" and nothing of why.
func (a *serverActor) notRunningInTime(kind error) *messages.ServerError {
	cause := "the server was not running in time"
	var last *messages.ServerError
	if !errors.As(a.lastErr, &last) {
		return a.serverError(kind, errors.New(cause), nil)
	}
	if last.Cause != "" {
		cause += "; its last failure: " + last.Cause
	}
	return a.serverError(kind, errors.New(cause), last.Stderr)
}

// onCancel abandons a call: a sent one is cancelled on the wire (the
// transport sends $/cancelRequest and the answer arrives as callDone); a
// waiting one is answered now.
func (a *serverActor) onCancel(ctx actor.Context, m *messages.Cancel) {
	c := a.calls.Get(m.ID)
	if c == nil || pendingOf(c).pull != nil {
		return
	}
	if c.State == calls.InFlight {
		pendingOf(c).cancel()
		return
	}
	a.finish(ctx, m.ID, nil, messages.ErrCanceled)
}

// finish answers a call, forgets it, and gives its slot to a waiting one.
func (a *serverActor) finish(ctx actor.Context, id uint64, result json.RawMessage, err error) {
	c := a.calls.Done(id)
	if c == nil {
		return
	}
	p := pendingOf(c)
	if p.cancel != nil {
		p.cancel()
	}
	if p.pull != nil {
		a.pullsQueued--
		a.onPullDone(ctx, p.pull, result, err)
	} else {
		a.replyTook(ctx, p.sender, p.req.ID, result, err, p.took, a.cold(p.req.Method))
	}
	a.flushPulls(ctx) // a pull waiting for room, if the queue was full
	a.dispatchWaiting(ctx)
	a.scheduleIdle()
}

// coldIndex is how long after a start a server's workspace-wide answers
// may lack what it has not indexed yet (servers such as pyright report no
// progress for it).
const coldIndex = 10 * time.Second

// cold reports whether an answer to method may be incomplete because the
// server started a moment ago: workspace symbols come from an index; with
// a ready line to wait for (ready.go) that did not come, references,
// implementations and callers too, from a search of the files it knows
// (pyright named a function's declaration alone). A server that logged
// its ready line knows its files.
func (a *serverActor) cold(method string) bool {
	return (method == "workspace/symbol" || a.readyLog != nil && workspaceWide(method)) && !a.readySeen &&
		a.cfg.Clock.Now().Sub(a.runningSince) < coldIndex
}

func (a *serverActor) reply(ctx actor.Context, to *actor.PID, id uint64, result json.RawMessage, err error) {
	a.replyTook(ctx, to, id, result, err, 0, false)
}

// replyTook is reply with the server's own time for the call; cold says
// the answer may lack what the server has not indexed yet.
func (a *serverActor) replyTook(ctx actor.Context, to *actor.PID, id uint64, result json.RawMessage, err error, took time.Duration, cold bool) {
	if to == nil {
		return
	}
	resp := &messages.Response{ID: id, ServerID: a.cfg.Server.ID, Err: err, Took: took, Indexing: a.indexing() || cold}
	if err == nil {
		resp.Result = result
	}
	ctx.Send(to, resp)
}

// holdForRestart keeps a crashed server's requests for its next
// incarnation: navigation is read-only, so a request the crash cut off is
// sent once more after the restart (its documents re-opened first); one
// cut off by a second crash is answered with err. A planned restart
// (crashed false: a configuration file changed) cuts off no request for
// good. The actor's own pulls are dropped: the restart pulls every open
// document again.
func (a *serverActor) holdForRestart(ctx actor.Context, err error, crashed bool) {
	held := a.calls.Drain()
	a.dropPulls()
	slices.SortFunc(held, func(x, y *calls.Call) int { return cmp.Compare(x.ID, y.ID) })
	for _, c := range held {
		p := pendingOf(c)
		if p.cancel != nil {
			p.cancel()
		}
		if crashed && c.State == calls.InFlight {
			p.crashes++
		}
		p.held = nil // sent again after the restart
		switch {
		case p.pull != nil:
		case p.crashes > 1:
			a.reply(ctx, p.sender, p.req.ID, nil, err)
		default:
			if _, aerr := a.calls.Add(c.ID, c.Deadline, p); aerr != nil {
				a.reply(ctx, p.sender, p.req.ID, nil, err)
				continue
			}
			a.expireAt(c.ID, c.Deadline)
		}
	}
}

// expireAt answers a waiting call with a timeout at its deadline, unless
// it was sent by then.
func (a *serverActor) expireAt(id uint64, deadline time.Time) {
	a.timers.After(max(0, deadline.Sub(a.cfg.Clock.Now())), &callExpired{id: id})
}

// failAll answers every pending call with err; pulls are dropped (a new
// process pulls again).
func (a *serverActor) failAll(ctx actor.Context, err error) {
	a.dropPulls()
	for _, c := range a.calls.Drain() {
		p := pendingOf(c)
		if p.cancel != nil {
			p.cancel()
		}
		if p.pull == nil {
			a.reply(ctx, p.sender, p.req.ID, nil, err)
		}
	}
}

// sendSelf returns a function that delivers messages to this actor from
// any goroutine.
func (a *serverActor) sendSelf(ctx actor.Context) func(any) { return lifecycle.Sender(ctx, a.self) }
