package supervisor

import "time"

// Budget counts the crashes of one server in a sliding window and acts as a
// circuit breaker.
//
// A crash at time c is within the window at time now when now-c < Window.
// The budget is spent when MaxCrashes crashes are within the window: with the
// defaults, the 5th crash within 3 minutes spends it, the 4th does not.
// Crashes spread over more than the window never spend it.
//
// A spent budget is a circuit breaker, not a life sentence: it stays spent
// until RetryAt, the time the oldest of those crashes leaves the window, and
// then allows one new try. If that try crashes before it has run for a full
// Window after RetryAt, the budget is spent again at once, for a full Window
// from that crash (so a server that keeps failing is tried once per Window
// instead of at its backoff rate). A crash after that Window has passed is
// counted afresh.
//
// Memory is bounded: a Budget keeps at most MaxCrashes crash times.
//
// The zero Budget uses the default Policy. A Budget is not safe for
// concurrent use: it is owned by one actor. None of its methods blocks.
type Budget struct {
	policy    Policy
	times     []time.Time // crashes within the window, oldest first
	openUntil time.Time   // spent before this time; zero if never spent
	tripped   bool        // spent since the last healthy Window
}

// NewBudget returns an empty Budget counting crashes with p's MaxCrashes and
// Window.
func NewBudget(p Policy) *Budget {
	return &Budget{policy: p}
}

// Record records a crash at now. Times passed to Record should not go
// backwards.
func (b *Budget) Record(now time.Time) {
	p := b.policy.withDefaults()
	if b.tripped && !now.Before(b.openUntil.Add(p.Window)) {
		b.tripped = false // the try after RetryAt ran a full Window
	}
	b.prune(now, p.Window)
	if len(b.times) == p.MaxCrashes {
		copy(b.times, b.times[1:])
		b.times = b.times[:len(b.times)-1]
	}
	b.times = append(b.times, now)
	switch {
	case b.tripped:
		b.openUntil = now.Add(p.Window)
	case len(b.times) == p.MaxCrashes:
		b.tripped = true
		b.openUntil = b.times[0].Add(p.Window)
	}
}

// Spent reports whether the budget is spent at now: no new try is allowed
// before RetryAt.
func (b *Budget) Spent(now time.Time) bool {
	return now.Before(b.openUntil)
}

// RetryAt returns the time from which a new try is allowed after the budget
// was spent: the time the oldest crash in the window leaves it (or, after a
// failed try, a full Window after that crash). It is zero if the budget was
// never spent since it was made or Reset, and in the past once it has passed.
func (b *Budget) RetryAt() time.Time {
	return b.openUntil
}

// Recent returns the number of recorded crashes within the window at now
// (at most MaxCrashes).
func (b *Budget) Recent(now time.Time) int {
	window := b.policy.withDefaults().Window
	n := 0
	for _, t := range b.times {
		if now.Sub(t) < window {
			n++
		}
	}
	return n
}

// Reset forgets every crash and closes the breaker.
func (b *Budget) Reset() {
	*b = Budget{policy: b.policy, times: b.times[:0]}
}

// last returns the time of the latest recorded crash, zero if none.
func (b *Budget) last() time.Time {
	if len(b.times) == 0 {
		return time.Time{}
	}
	return b.times[len(b.times)-1]
}

// prune drops the crashes that have left the window at now.
func (b *Budget) prune(now time.Time, window time.Duration) {
	i := 0
	for i < len(b.times) && now.Sub(b.times[i]) >= window {
		i++
	}
	if i > 0 {
		n := copy(b.times, b.times[i:])
		b.times = b.times[:n]
	}
}
