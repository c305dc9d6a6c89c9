package supervisor

import (
	"math"
	"time"
)

// Defaults of Policy, from DESIGN.md section 4.
const (
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 30 * time.Second
	DefaultJitter      = 0.2
	DefaultMaxCrashes  = 5
	DefaultWindow      = 3 * time.Minute
)

// Policy is the restart policy of one language server. Its zero value is the
// default policy: every zero (or negative, for durations and counts) field
// means its documented default. A Policy is a plain value, safe to copy and
// to use from several goroutines.
type Policy struct {
	// BackoffBase is the delay before the first restart (DefaultBackoffBase).
	BackoffBase time.Duration
	// BackoffMax caps every delay, jitter included (DefaultBackoffMax). A
	// BackoffMax below BackoffBase wins over it.
	BackoffMax time.Duration
	// Jitter is the fraction by which a delay varies either way: 0.2 means
	// ±20%. Zero means DefaultJitter; a negative value disables jitter;
	// values above 1 count as 1.
	Jitter float64
	// MaxCrashes is the number of crashes within Window that spends the
	// budget (DefaultMaxCrashes).
	MaxCrashes int
	// Window is the sliding window of the crash budget (DefaultWindow).
	Window time.Duration
}

// withDefaults returns p with every unset field replaced by its default.
func (p Policy) withDefaults() Policy {
	if p.BackoffBase <= 0 {
		p.BackoffBase = DefaultBackoffBase
	}
	if p.BackoffMax <= 0 {
		p.BackoffMax = DefaultBackoffMax
	}
	if p.Jitter == 0 {
		p.Jitter = DefaultJitter
	}
	if p.MaxCrashes <= 0 {
		p.MaxCrashes = DefaultMaxCrashes
	}
	if p.Window <= 0 {
		p.Window = DefaultWindow
	}
	return p
}

// Backoff returns the delay before restart number attempt (0 for the first
// restart): BackoffBase doubled attempt times, capped at BackoffMax, then
// multiplied by 1 + Jitter*(2*rnd-1) and capped at BackoffMax again. rnd is
// a random number in [0, 1) supplied by the caller (values outside are
// clamped), so Backoff is a pure function. It never overflows: any attempt
// beyond the cap yields the cap. A negative attempt counts as 0.
func (p Policy) Backoff(attempt int, rnd float64) time.Duration {
	p = p.withDefaults()
	d := min(p.BackoffBase, p.BackoffMax)
	for i := 0; i < attempt && d < p.BackoffMax; i++ {
		if d > p.BackoffMax/2 {
			d = p.BackoffMax
			break
		}
		d *= 2
	}
	return jitter(min(d, p.BackoffMax), p.BackoffMax, p.Jitter, rnd)
}

// jitter scales d by 1 + j*(2*rnd-1), rounded to the nanosecond and kept in
// [0, max]. A j <= 0 leaves d unchanged.
func jitter(d, max time.Duration, j, rnd float64) time.Duration {
	if j <= 0 {
		return d
	}
	j = min(j, 1)
	switch {
	case math.IsNaN(rnd) || rnd < 0:
		rnd = 0
	case rnd > 1:
		rnd = 1
	}
	f := math.Round(float64(d) * (1 + j*(2*rnd-1)))
	switch {
	case f >= float64(max):
		return max
	case f <= 0:
		return 0
	}
	return time.Duration(f)
}
