package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// timers are an actor's timers: each sends a message to the actor when it
// fires, wrapped in timerFired so the actor forgets it then. The actor
// stops them all when it stops or restarts. Owned by one actor; not safe
// for concurrent use.
type timers struct {
	root *actor.RootContext
	self *actor.PID
	m    map[uint64]*time.Timer
	next uint64
}

// timerFired wraps a message sent by one of an actor's timers.
type timerFired struct {
	id  uint64
	msg any
}

func newTimers(ctx actor.Context) *timers {
	return &timers{root: ctx.ActorSystem().Root, self: ctx.Self(), m: make(map[uint64]*time.Timer)}
}

// after sends msg to the actor after d and returns the timer's id.
func (t *timers) after(d time.Duration, msg any) uint64 {
	t.next++
	fired := &timerFired{id: t.next, msg: msg}
	root, self := t.root, t.self
	t.m[t.next] = time.AfterFunc(d, func() { root.Send(self, fired) })
	return t.next
}

// fired forgets a timer that fired and returns its message.
func (t *timers) fired(f *timerFired) any {
	delete(t.m, f.id)
	return f.msg
}

// cancel stops a timer (a no-op for one that fired).
func (t *timers) cancel(id uint64) {
	if tm, ok := t.m[id]; ok {
		tm.Stop()
		delete(t.m, id)
	}
}

// stopAll stops every pending timer.
func (t *timers) stopAll() {
	for _, tm := range t.m {
		tm.Stop()
	}
	clear(t.m)
}

// len is the number of pending timers.
func (t *timers) len() int { return len(t.m) }
