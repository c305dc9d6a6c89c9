package lifecycle

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time source of the actors: RealClock, or a FakeClock in
// tests. Implementations are safe for concurrent use.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; Stop cancels it.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop cancels the call; false when it already ran or was stopped.
	Stop() bool
}

// RealClock is the system clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// FakeClock is a Clock for tests: time stands still until Advance, which
// runs the functions that fall due, in order, on the caller's goroutine.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	pending []*fakeTimer
	seq     int
}

type fakeTimer struct {
	c    *FakeClock
	at   time.Time
	seq  int
	f    func()
	done bool
}

// NewFakeClock returns a fake clock set to start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at Now()+d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.pending = append(c.pending, t)
	return t
}

// Stop cancels the timer.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Pending is the number of timers not yet run or stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.pending {
		if !t.done {
			n++
		}
	}
	return n
}

// Advance moves time forward by d, running every timer that falls due
// (earliest first) with the clock set to its time.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		t := c.nextDue(end)
		if t == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		t.done = true
		c.now = t.at
		c.mu.Unlock()
		t.f()
	}
}

// nextDue returns the earliest live timer due by end; c.mu is held.
func (c *FakeClock) nextDue(end time.Time) *fakeTimer {
	live := c.pending[:0]
	for _, t := range c.pending {
		if !t.done {
			live = append(live, t)
		}
	}
	c.pending = live
	sort.Slice(live, func(i, j int) bool {
		return live[i].at.Before(live[j].at) || live[i].at.Equal(live[j].at) && live[i].seq < live[j].seq
	})
	if len(live) == 0 || live[0].at.After(end) {
		return nil
	}
	return live[0]
}
