package supervisor

import (
	"math"
	"testing"
	"time"
)

func TestPolicyDefaults(t *testing.T) {
	got := Policy{}.withDefaults()
	want := Policy{
		BackoffBase: 500 * time.Millisecond,
		BackoffMax:  30 * time.Second,
		Jitter:      0.2,
		MaxCrashes:  5,
		Window:      3 * time.Minute,
	}
	if got != want {
		t.Errorf("Policy{}.withDefaults() = %+v, want %+v", got, want)
	}
}

func TestBackoffScheduleWithoutJitter(t *testing.T) {
	p := Policy{Jitter: -1}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{-1, 500 * time.Millisecond},
		{0, 500 * time.Millisecond},
		{1, time.Second},
		{2, 2 * time.Second},
		{3, 4 * time.Second},
		{4, 8 * time.Second},
		{5, 16 * time.Second},
		{6, 30 * time.Second},
		{7, 30 * time.Second},
		{64, 30 * time.Second},
		{1000, 30 * time.Second},
		{math.MaxInt, 30 * time.Second},
	}
	for _, tt := range tests {
		for _, rnd := range []float64{0, 0.5, 0.999} {
			if got := p.Backoff(tt.attempt, rnd); got != tt.want {
				t.Errorf("Backoff(%d, %v) = %v, want %v", tt.attempt, rnd, got, tt.want)
			}
		}
	}
}

func TestBackoffJitter(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{"low", Policy{}, 0, 0, 400 * time.Millisecond},
		{"middle", Policy{}, 0, 0.5, 500 * time.Millisecond},
		{"high", Policy{}, 0, 0.999, 599800 * time.Microsecond},
		{"low at cap", Policy{}, 6, 0, 24 * time.Second},
		{"high capped", Policy{}, 6, 0.999, 30 * time.Second},
		{"high capped at 1000", Policy{}, 1000, 0.999, 30 * time.Second},
		{"below 0 clamps", Policy{}, 0, -3, 400 * time.Millisecond},
		{"NaN clamps", Policy{}, 0, math.NaN(), 400 * time.Millisecond},
		{"jitter 1", Policy{Jitter: 1}, 0, 0, 0},
		{"jitter above 1", Policy{Jitter: 5}, 2, 0.75, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := tt.p.Backoff(tt.attempt, tt.rnd); got != tt.want {
			t.Errorf("%s: %+v.Backoff(%d, %v) = %v, want %v", tt.name, tt.p, tt.attempt, tt.rnd, got, tt.want)
		}
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	p := Policy{}
	for attempt := range 12 {
		plain := Policy{Jitter: -1}.Backoff(attempt, 0)
		lo := time.Duration(float64(plain) * 0.8)
		hi := min(time.Duration(float64(plain)*1.2), DefaultBackoffMax)
		for _, rnd := range []float64{0, 0.999} {
			if got := p.Backoff(attempt, rnd); got < lo-1 || got > hi+1 {
				t.Errorf("Backoff(%d, %v) = %v, want within [%v, %v]", attempt, rnd, got, lo, hi)
			}
		}
	}
}

func TestBackoffEdges(t *testing.T) {
	tests := []struct {
		name    string
		p       Policy
		attempt int
		want    time.Duration
	}{
		{"max below base", Policy{BackoffBase: time.Minute, BackoffMax: time.Second, Jitter: -1}, 0, time.Second},
		{"huge max", Policy{BackoffBase: 1, BackoffMax: math.MaxInt64, Jitter: -1}, 1000, math.MaxInt64},
		{"huge max, jitter", Policy{BackoffBase: 1, BackoffMax: math.MaxInt64, Jitter: 1}, 1000, math.MaxInt64},
		{"huge max, 62", Policy{BackoffBase: 1, BackoffMax: math.MaxInt64, Jitter: -1}, 62, 1 << 62},
	}
	for _, tt := range tests {
		if got := tt.p.Backoff(tt.attempt, 0.999); got != tt.want {
			t.Errorf("%s: Backoff(%d, 0.999) = %v, want %v", tt.name, tt.attempt, got, tt.want)
		}
	}
}
