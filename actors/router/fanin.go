package router

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// fanIn gathers the server actors' answers to one fanned-out request
// without the router: it is a process in the actor registry, the sender
// of every sub-request, so each server actor's Response fills its result
// on the server actor's own goroutine, and the last one sends the reply
// straight to the caller. The router's mailbox is not on the way back (an
// answer used to wake it, through a future, only to be passed on); the
// fan-in puts itself on the router's ended list, which the router clears
// (forgetting the caller's id) when it next handles a message, without a
// message of its own to wake it.
//
// A server actor that does not answer (stopped, or restarted by its
// supervisor with the request lost) is answered for by a timer set past
// every server's own deadline, as the future it replaces was.
type fanIn struct {
	sys    *actor.ActorSystem
	ended  *fanEnded
	caller callerKey
	sender *actor.PID // nil: nobody waits

	mu      sync.Mutex
	self    *actor.PID
	reply   *messages.FileResponse
	subs    []fanSub
	left    int
	timer   *time.Timer
	stopped bool
}

// fanSub is one server's part of a fan-out.
type fanSub struct {
	id         uint64 // the router's id of the sub-request
	pid        *actor.PID
	wasRunning bool // the server ran when asked (else a timeout reads as Starting: startingTimeout)
	answered   bool
}

// fanEnded lists the fan-outs that ended since the router last looked.
// The router takes the list before it handles any client message, so it
// holds at most the fan-outs in flight at the previous one.
type fanEnded struct {
	mu sync.Mutex
	fs []*fanIn
}

func (e *fanEnded) add(f *fanIn) {
	e.mu.Lock()
	e.fs = append(e.fs, f)
	e.mu.Unlock()
}

// take returns the list and empties it.
func (e *fanEnded) take() []*fanIn {
	e.mu.Lock()
	defer e.mu.Unlock()
	fs := e.fs
	e.fs = nil
	return fs
}

// newFanIn registers a fan-in for reply with n servers.
func newFanIn(sys *actor.ActorSystem, ended *fanEnded, sender *actor.PID, caller callerKey, reply *messages.FileResponse, n int) *fanIn {
	f := &fanIn{sys: sys, ended: ended, caller: caller, sender: sender, reply: reply, subs: make([]fanSub, 0, n), left: n}
	reply.Results = make([]messages.ServerResult, n)
	reg := sys.ProcessRegistry
	f.self, _ = reg.Add(f, "fanin"+reg.NextId())
	return f
}

// add records the i-th sub-request; every one is added before any is sent.
func (f *fanIn) add(key messages.ServerKey, pid *actor.PID, id uint64, wasRunning bool) {
	f.reply.Results[len(f.subs)].ServerKey = key
	f.subs = append(f.subs, fanSub{id: id, pid: pid, wasRunning: wasRunning})
}

// expireAfter answers for the servers still silent after d.
func (f *fanIn) expireAfter(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.timer = time.AfterFunc(d, func() { f.expire(d) })
	}
}

// SendUserMessage implements actor.Process: a server actor's answer, or
// the dead-letter answer for a server actor that is gone.
func (f *fanIn) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch m := msg.(type) {
	case *messages.Response:
		if i := f.waiting(func(s *fanSub) bool { return s.id == m.ID }); i >= 0 {
			out := &f.reply.Results[i]
			out.Result, out.Err, out.Indexing, out.Took = m.Result, m.Err, m.Indexing, m.Took
			out.Starting = !f.subs[i].wasRunning && startingTimeout(m.Err)
			f.answered(i)
		}
	case *actor.DeadLetterResponse:
		// It names no target: the request was to an actor no longer
		// registered.
		gone := func(s *fanSub) bool { _, ok := f.sys.ProcessRegistry.GetLocal(s.pid.Id); return !ok }
		if i := f.waiting(gone); i >= 0 {
			f.reply.Results[i].Err = fmt.Errorf("agentlsp: server actor %s did not answer: %w", f.reply.Results[i].ServerID, actor.ErrDeadLetter)
			f.answered(i)
		}
	}
}

// startingTimeout reports whether err is the timeout of a request to a
// server that was not running when asked: its start outlasted the
// request's bound, or the start ended inside it and the request (a
// workspace request's startWait) ran out before the server, still warming
// up, answered. Either way the server is still starting: asking again
// shortly is the answer, not an error (a cold typescript-language-server
// at load 10 answered "request timed out: workspace/symbol" this way).
func startingTimeout(err error) bool {
	return errors.Is(err, messages.ErrStartupTimeout) || errors.Is(err, messages.ErrRequestTimeout)
}

// expire answers for every server still silent after d.
func (f *fanIn) expire(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.subs {
		if !f.subs[i].answered {
			f.reply.Results[i].Err = fmt.Errorf("agentlsp: server actor %s did not answer: %w after %v", f.reply.Results[i].ServerID, actor.ErrTimeout, d)
			f.answered(i)
		}
	}
}

// waiting is the index of the first unanswered sub-request that matches,
// or -1; f.mu is held.
func (f *fanIn) waiting(match func(*fanSub) bool) int {
	for i := range f.subs {
		if !f.subs[i].answered && match(&f.subs[i]) {
			return i
		}
	}
	return -1
}

// answered marks the i-th result filled, and replies after the last;
// f.mu is held.
func (f *fanIn) answered(i int) {
	f.subs[i].answered = true
	if f.left--; f.left == 0 {
		f.finish()
	}
}

// finish replies, leaves the registry and goes on the router's ended
// list; f.mu is held.
func (f *fanIn) finish() {
	f.stopped = true
	if f.timer != nil {
		f.timer.Stop()
	}
	f.sys.ProcessRegistry.Remove(f.self)
	if f.sender != nil {
		f.sys.Root.Send(f.sender, f.reply)
	}
	f.ended.add(f)
}

// SendSystemMessage implements actor.Process.
func (f *fanIn) SendSystemMessage(*actor.PID, any) {}

// Stop implements actor.Process.
func (f *fanIn) Stop(*actor.PID) {}
