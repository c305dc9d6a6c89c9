package supervisor

import (
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestBudgetFifthCrashInWindowSpends(t *testing.T) {
	b := NewBudget(Policy{})
	for i, d := range []time.Duration{0, 30 * time.Second, time.Minute, 90 * time.Second} {
		b.Record(at(d))
		if b.Spent(at(d)) {
			t.Fatalf("after crash %d: Spent = true, want false", i+1)
		}
		if got := b.Recent(at(d)); got != i+1 {
			t.Fatalf("after crash %d: Recent = %d, want %d", i+1, got, i+1)
		}
	}
	if !b.RetryAt().IsZero() {
		t.Errorf("RetryAt before spent = %v, want zero", b.RetryAt())
	}
	now := at(2 * time.Minute)
	b.Record(now)
	if !b.Spent(now) {
		t.Fatalf("after 5th crash: Spent = false, want true")
	}
	if want := at(3 * time.Minute); !b.RetryAt().Equal(want) {
		t.Errorf("RetryAt = %v, want oldest+window %v", b.RetryAt(), want)
	}
	if !b.Spent(b.RetryAt().Add(-time.Nanosecond)) {
		t.Errorf("Spent just before RetryAt = false, want true")
	}
	if b.Spent(b.RetryAt()) {
		t.Errorf("Spent at RetryAt = true, want false: one new try is allowed")
	}
	if got := b.Recent(b.RetryAt()); got != 4 {
		t.Errorf("Recent at RetryAt = %d, want 4", got)
	}
}

func TestBudgetSpreadCrashesNeverSpend(t *testing.T) {
	b := NewBudget(Policy{})
	step := 46 * time.Second // 4 steps = 184s > 3 min
	for i := range 100 {
		now := at(time.Duration(i) * step)
		b.Record(now)
		if b.Spent(now) {
			t.Fatalf("crash %d at %v: Spent = true, want false", i+1, now.Sub(t0))
		}
		if got := b.Recent(now); got > 4 {
			t.Fatalf("crash %d: Recent = %d, want <= 4", i+1, got)
		}
	}
}

// spend records MaxCrashes crashes 1s apart from start and returns the last time.
func spend(t *testing.T, b *Budget, start time.Time, n int) time.Time {
	t.Helper()
	now := start
	for i := range n {
		now = start.Add(time.Duration(i) * time.Second)
		b.Record(now)
	}
	if !b.Spent(now) {
		t.Fatalf("after %d crashes: Spent = false, want true", n)
	}
	return now
}

func TestBudgetHalfOpen(t *testing.T) {
	w := 3 * time.Minute
	b := NewBudget(Policy{})
	spend(t, b, t0, 5)
	retry := b.RetryAt()

	// The one try after RetryAt crashes soon: open again for a full window.
	crash := retry.Add(10 * time.Second)
	b.Record(crash)
	if !b.Spent(crash) {
		t.Fatalf("failed try: Spent = false, want true")
	}
	if want := crash.Add(w); !b.RetryAt().Equal(want) {
		t.Errorf("failed try: RetryAt = %v, want crash+window %v", b.RetryAt(), want)
	}

	// The next try runs a full window, then crashes: counted afresh.
	retry = b.RetryAt()
	late := retry.Add(w)
	b.Record(late)
	if b.Spent(late) {
		t.Errorf("crash after a healthy window: Spent = true, want false")
	}
	if got := b.Recent(late); got != 1 {
		t.Errorf("crash after a healthy window: Recent = %d, want 1", got)
	}
}

func TestBudgetBoundedAndReset(t *testing.T) {
	b := NewBudget(Policy{MaxCrashes: 3, Window: time.Hour})
	for i := range 1000 {
		b.Record(at(time.Duration(i) * time.Millisecond))
	}
	if len(b.times) > 3 {
		t.Errorf("len(times) = %d after 1000 crashes, want <= 3", len(b.times))
	}
	b.Reset()
	now := at(time.Second)
	if b.Spent(now) || b.Recent(now) != 0 || !b.RetryAt().IsZero() {
		t.Errorf("after Reset: Spent = %v, Recent = %d, RetryAt = %v; want false, 0, zero",
			b.Spent(now), b.Recent(now), b.RetryAt())
	}
	b.Record(now)
	if got := b.Recent(now); got != 1 {
		t.Errorf("Recent after Reset and a crash = %d, want 1", got)
	}
}

func TestZeroBudgetUsesDefaults(t *testing.T) {
	var b Budget
	spend(t, &b, t0, DefaultMaxCrashes)
	if want := t0.Add(DefaultWindow); !b.RetryAt().Equal(want) {
		t.Errorf("RetryAt = %v, want %v", b.RetryAt(), want)
	}
}
