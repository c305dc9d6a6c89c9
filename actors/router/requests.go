package router

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// answerSlack is how much longer than the request's own timeout and
// startup a fan-in waits for a server actor's answer (the server answers
// timeouts itself).
const answerSlack = 5 * time.Second

func (r *routerActor) onFileRequest(ctx actor.Context, sender *actor.PID, m *messages.FileRequest) {
	if m.Method == "" {
		r.reply(ctx, sender, &messages.FileResponse{ID: m.ID, Err: errNoMethod(m)})
		return
	}
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

// errNoMethod is the error of a request without its LSP method: a server
// sent "" answers nothing that is one (the fake never answered, and the
// caller waited for the request's timeout).
func errNoMethod(m any) error {
	return fmt.Errorf("agentlsp: a %T needs a Method, the LSP method to call (textDocument/hover, workspace/symbol, ...)", m)
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
// time is reported as starting, not failed. The answers come back through
// a fanIn, which replies to the caller itself.
func (r *routerActor) fanoutRequestEach(ctx actor.Context, sender *actor.PID, reply *messages.FileResponse, method string,
	params json.RawMessage, timeouts []time.Duration, keys []messages.ServerKey, defs []*config.Server) {
	caller := keyOf(sender, reply.ID)
	f := newFanIn(ctx.ActorSystem(), &r.ended, sender, caller, reply, len(keys))
	subs := make([]*messages.Request, len(keys))
	var wait time.Duration // the longest a server actor may take to answer
	for i, key := range keys {
		e := r.server(ctx, key, defs[i])
		e.sent++
		r.nextID++
		subs[i] = &messages.Request{ID: r.nextID, Method: method, Params: params, Timeout: timeouts[i]}
		f.add(key, e.pid, r.nextID, e.state == messages.StateRunning)
		t := timeouts[i]
		if t <= 0 {
			t = e.lim.RequestTimeout
		}
		wait = max(wait, t+e.lim.StartupTimeout+answerSlack)
	}
	r.calls[caller] = f
	for i, sub := range subs {
		ctx.RequestWithCustomSender(f.subs[i].pid, sub, f.self)
	}
	f.expireAfter(wait)
}

// forgetEnded forgets the fan-outs that ended (their callers were
// answered): a Cancel for them has nothing left to cancel.
func (r *routerActor) forgetEnded() {
	for _, f := range r.ended.take() {
		if r.calls[f.caller] == f {
			delete(r.calls, f.caller)
		}
	}
}

// onCancel forwards a cancellation to every server the sender's request
// went to (callers' ids are their own: kept by sender).
func (r *routerActor) onCancel(ctx actor.Context, sender *actor.PID, m *messages.Cancel) {
	if f := r.calls[keyOf(sender, m.ID)]; f != nil {
		for i := range f.subs {
			// pid and id are set before the fan-out is sent; answered,
			// which the server actors write, is not read here.
			s := &f.subs[i]
			ctx.Send(s.pid, &messages.Cancel{ID: s.id})
		}
	}
}
