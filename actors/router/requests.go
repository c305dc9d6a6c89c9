package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// sentCall is where one caller request went: the server actor and the id
// the router gave it there.
type sentCall struct {
	pid *actor.PID
	id  uint64
}

// futureSlack is how much longer than the request's own timeout the router
// waits for a server actor's answer (the server answers timeouts itself).
const futureSlack = 5 * time.Second

func (r *routerActor) onFileRequest(ctx actor.Context, sender *actor.PID, m *messages.FileRequest) {
	if m.Session != "" {
		r.onDocumentRequest(ctx, sender, m)
		return
	}
	rt, err := r.route(m.Path, false)
	if err != nil {
		r.reply(ctx, sender, &messages.FileResponse{ID: m.ID, Err: err})
		return
	}
	keys := make([]messages.ServerKey, len(rt.targets))
	for i, t := range rt.targets {
		keys[i] = t.ServerKey
	}
	r.fanoutRequest(ctx, sender, &messages.FileResponse{ID: m.ID}, m.Method, m.Params, m.Timeout, keys, rt.defs)
}

// fanoutRequest sends the request to each server and replies (reply,
// with the results) with every answer once all arrived. Each server actor
// gets its own request id; the caller's id maps to them for Cancel.
func (r *routerActor) fanoutRequest(ctx actor.Context, sender *actor.PID, reply *messages.FileResponse, method string,
	params json.RawMessage, timeout time.Duration, keys []messages.ServerKey, defs []*config.Server) {
	timeouts := make([]time.Duration, len(keys))
	for i := range timeouts {
		timeouts[i] = timeout
	}
	r.fanoutRequestEach(ctx, sender, reply, method, params, timeouts, keys, defs)
}

// fanoutRequestEach is fanoutRequest with a timeout per server. A server
// that was not running when asked and answers that it did not start in
// time is reported as starting, not failed.
func (r *routerActor) fanoutRequestEach(ctx actor.Context, sender *actor.PID, reply *messages.FileResponse, method string,
	params json.RawMessage, timeouts []time.Duration, keys []messages.ServerKey, defs []*config.Server) {
	id := reply.ID
	reply.Results = make([]messages.ServerResult, len(keys))
	left := len(keys)
	for i, key := range keys {
		e := r.server(ctx, key, defs[i])
		e.sent++
		r.nextID++
		sub := &messages.Request{ID: r.nextID, Method: method, Params: params, Timeout: timeouts[i]}
		r.calls[keyOf(sender, id)] = append(r.calls[keyOf(sender, id)], sentCall{pid: e.pid, id: sub.ID})
		reply.Results[i].ServerKey = key
		wasRunning := e.state == messages.StateRunning
		wait := timeouts[i]
		if wait <= 0 {
			wait = e.lim.RequestTimeout
		}
		f := ctx.RequestFuture(e.pid, sub, wait+e.lim.StartupTimeout+futureSlack)
		ctx.ReenterAfter(f, func(res any, err error) {
			out := &reply.Results[i]
			if resp, ok := res.(*messages.Response); ok && err == nil {
				out.Result, out.Err, out.Indexing, out.Took = resp.Result, resp.Err, resp.Indexing, resp.Took
				out.Starting = !wasRunning && errors.Is(resp.Err, messages.ErrStartupTimeout)
			} else {
				out.Err = fmt.Errorf("agentlsp: server actor %s did not answer: %v", key.ServerID, err)
			}
			if left--; left == 0 {
				delete(r.calls, keyOf(sender, id))
				if sender != nil {
					ctx.Send(sender, reply)
				}
			}
		})
	}
}

// onCancel forwards a cancellation to every server the sender's request
// went to (callers' ids are their own: kept by sender).
func (r *routerActor) onCancel(ctx actor.Context, sender *actor.PID, m *messages.Cancel) {
	for _, c := range r.calls[keyOf(sender, m.ID)] {
		ctx.Send(c.pid, &messages.Cancel{ID: c.id})
	}
}
