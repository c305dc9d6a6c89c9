package router

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
)

// inbox is a process that keeps what it is sent, for a caller's replies.
type inbox chan any

func (b inbox) SendUserMessage(_ *actor.PID, m any) { _, msg, _ := actor.UnwrapEnvelope(m); b <- msg }
func (inbox) SendSystemMessage(*actor.PID, any)     {}
func (inbox) Stop(*actor.PID)                       {}

func (b inbox) next(t *testing.T) any {
	t.Helper()
	select {
	case m := <-b:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received")
		return nil
	}
}

// fanInFixture is a fan-in of two servers, "a" (running when asked) and
// "b" (not running), and its caller's inbox.
func fanInFixture(t *testing.T) (*actor.ActorSystem, *fanIn, *fanEnded, inbox, []*actor.PID) {
	t.Helper()
	sys := lifecycle.NewSystem(nil)
	t.Cleanup(sys.Shutdown)
	caller := make(inbox, 4)
	callerPID, _ := sys.ProcessRegistry.Add(caller, "caller")
	ended := &fanEnded{}
	f := newFanIn(sys, ended, callerPID, keyOf(callerPID, 7), &messages.FileResponse{ID: 7}, 2)
	servers := []*actor.PID{actor.NewPID(sys.Address(), "server-a"), actor.NewPID(sys.Address(), "server-b")}
	f.add(messages.ServerKey{ServerID: "a", Root: "/w"}, servers[0], 1, true)
	f.add(messages.ServerKey{ServerID: "b", Root: "/w"}, servers[1], 2, false)
	return sys, f, ended, caller, servers
}

// TestFanInRepliesOnceAllAnswered: answers in any order fill their own
// server's result, the caller gets one reply after the last, and the
// fan-in leaves the registry for the router's ended list.
func TestFanInRepliesOnceAllAnswered(t *testing.T) {
	sys, f, ended, caller, _ := fanInFixture(t)
	sys.Root.Send(f.self, &messages.Response{ID: 2, ServerID: "b", Err: messages.ErrStartupTimeout})
	select {
	case m := <-caller:
		t.Fatalf("replied after one answer of two: %#v", m)
	default:
	}
	if got := ended.take(); len(got) != 0 {
		t.Fatalf("ended before the last answer: %d", len(got))
	}
	sys.Root.Send(f.self, &messages.Response{ID: 1, ServerID: "a", Result: json.RawMessage(`{"x":1}`), Took: time.Millisecond, Indexing: true})
	reply := caller.next(t).(*messages.FileResponse)
	if reply.ID != 7 || len(reply.Results) != 2 {
		t.Fatalf("reply = %+v", reply)
	}
	a, b := reply.Results[0], reply.Results[1]
	if a.ServerID != "a" || string(a.Result) != `{"x":1}` || a.Err != nil || !a.Indexing || a.Took != time.Millisecond || a.Starting {
		t.Errorf("server a's result = %+v", a)
	}
	if b.ServerID != "b" || !errors.Is(b.Err, messages.ErrStartupTimeout) || !b.Starting {
		t.Errorf("server b's result = %+v, want starting (it was not running when asked)", b)
	}
	if got := ended.take(); len(got) != 1 || got[0] != f {
		t.Errorf("ended = %v, want the fan-in", got)
	}
	if _, ok := sys.ProcessRegistry.GetLocal(f.self.Id); ok {
		t.Error("the fan-in is still in the registry")
	}
	// A late or repeated answer changes nothing and replies no more.
	sys.Root.Send(f.self, &messages.Response{ID: 1, ServerID: "a"})
	f.SendUserMessage(f.self, &messages.Response{ID: 1, ServerID: "a"})
	select {
	case m := <-caller:
		t.Errorf("a second reply: %#v", m)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestFanInAnswersForSilentServers: a server actor that is gone is
// answered for by its dead letter, one that never answers by the timer;
// each error names the server.
func TestFanInAnswersForSilentServers(t *testing.T) {
	sys, f, _, caller, servers := fanInFixture(t)
	// Nobody is registered as server-a: the request comes back as a dead letter.
	sys.Root.RequestWithCustomSender(servers[0], &messages.Request{ID: 1}, f.self)
	f.expireAfter(100 * time.Millisecond)
	reply := caller.next(t).(*messages.FileResponse)
	a, b := reply.Results[0], reply.Results[1]
	if !errors.Is(a.Err, actor.ErrDeadLetter) || !strings.Contains(a.Err.Error(), "server actor a did not answer") {
		t.Errorf("server a's error = %v, want a dead letter naming it", a.Err)
	}
	if !errors.Is(b.Err, actor.ErrTimeout) || !strings.Contains(b.Err.Error(), "server actor b did not answer") || b.Starting {
		t.Errorf("server b's error = %v (starting %v), want a timeout naming it", b.Err, b.Starting)
	}
}

// TestRouterForgetsEndedFanOuts: the router drops a caller's id once its
// fan-out ended, and only that fan-out's (the id may be asked again).
func TestRouterForgetsEndedFanOuts(t *testing.T) {
	_, f, ended, _, _ := fanInFixture(t)
	other := &fanIn{caller: f.caller}
	r := &routerActor{calls: map[callerKey]*fanIn{f.caller: other}}
	r.ended.fs = append(r.ended.fs, ended.take()...)
	r.ended.add(f) // ended, but the id now belongs to another fan-out
	r.forgetEnded()
	if r.calls[f.caller] != other {
		t.Fatal("forgot the caller's newer fan-out")
	}
	r.ended.add(other)
	r.forgetEnded()
	if len(r.calls) != 0 || len(r.ended.fs) != 0 {
		t.Errorf("calls %d, ended %d after both ended, want none", len(r.calls), len(r.ended.fs))
	}
}

// TestFanInTimeoutOfAServerNotRunningIsStarting: a request timeout is an
// error from a server that ran when asked, and "still starting" from one
// that did not (its start ended inside the request's bound, but the
// request did not: a cold typescript-language-server's workspace/symbol at
// load 10), so the caller is told to ask again, not given an error.
func TestFanInTimeoutOfAServerNotRunningIsStarting(t *testing.T) {
	sys, f, _, caller, _ := fanInFixture(t)
	sys.Root.Send(f.self, &messages.Response{ID: 1, ServerID: "a", Err: messages.ErrRequestTimeout})
	sys.Root.Send(f.self, &messages.Response{ID: 2, ServerID: "b", Err: messages.ErrRequestTimeout})
	reply := caller.next(t).(*messages.FileResponse)
	a, b := reply.Results[0], reply.Results[1]
	if !errors.Is(a.Err, messages.ErrRequestTimeout) || a.Starting {
		t.Errorf("server a's result = %+v, want its timeout as an error (it ran when asked)", a)
	}
	if !b.Starting {
		t.Errorf("server b's result = %+v, want starting (it was not running when asked)", b)
	}
}
