package lifecycle

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Timers are one actor's timers: each sends a message to the actor when
// it fires, wrapped in a Fired so the actor forgets it then (Fired). The
// actor stops them all when it stops or restarts. Owned by one actor; not
// safe for concurrent use.
type Timers struct {
	clock Clock
	send  func(any)
	m     map[uint64]Timer
	next  uint64
}

// Fired wraps a message sent by one of an actor's timers: the actor
// passes it to Timers.Fired and handles the message it returns.
type Fired struct {
	id  uint64
	msg any
}

// NewTimers returns the timers of the actor whose context ctx is, on clock
// (nil: RealClock).
func NewTimers(ctx actor.Context, clock Clock) *Timers {
	if clock == nil {
		clock = RealClock{}
	}
	return &Timers{clock: clock, send: Sender(ctx, ctx.Self()), m: make(map[uint64]Timer)}
}

// After sends msg to the actor after d and returns the timer's id.
func (t *Timers) After(d time.Duration, msg any) uint64 {
	t.next++
	fired := &Fired{id: t.next, msg: msg}
	send := t.send
	t.m[t.next] = t.clock.AfterFunc(d, func() { send(fired) })
	return t.next
}

// Fired forgets a timer that fired and returns its message.
func (t *Timers) Fired(f *Fired) any {
	delete(t.m, f.id)
	return f.msg
}

// Cancel stops a timer (a no-op for one that fired, or for id 0).
func (t *Timers) Cancel(id uint64) {
	if tm, ok := t.m[id]; ok {
		tm.Stop()
		delete(t.m, id)
	}
}

// StopAll stops every pending timer.
func (t *Timers) StopAll() {
	for _, tm := range t.m {
		tm.Stop()
	}
	clear(t.m)
}

// Len is the number of pending timers.
func (t *Timers) Len() int { return len(t.m) }

// Now is the clock's time.
func (t *Timers) Now() time.Time { return t.clock.Now() }
