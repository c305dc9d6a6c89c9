package supervisor

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// fakeSupervisor records the directives a Strategy applies.
type fakeSupervisor struct {
	mu       sync.Mutex
	restarts map[string]chan struct{} // one signal per restart, by child id
	stopped  map[string]int
}

func newFakeSupervisor() *fakeSupervisor {
	return &fakeSupervisor{restarts: make(map[string]chan struct{}), stopped: make(map[string]int)}
}

// restarted returns the channel signalling the restarts of child id.
func (f *fakeSupervisor) restarted(id string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.restarts[id]
	if !ok {
		ch = make(chan struct{}, 64)
		f.restarts[id] = ch
	}
	return ch
}

func (f *fakeSupervisor) Children() []*actor.PID       { return nil }
func (f *fakeSupervisor) EscalateFailure(_, _ any)     {}
func (f *fakeSupervisor) ResumeChildren(...*actor.PID) {}

func (f *fakeSupervisor) RestartChildren(pids ...*actor.PID) {
	for _, p := range pids {
		f.restarted(p.Id) <- struct{}{}
	}
}

func (f *fakeSupervisor) StopChildren(pids ...*actor.PID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pids {
		f.stopped[p.Id]++
	}
}

func (f *fakeSupervisor) stops(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped[id]
}

func TestStrategyConcurrentFailures(t *testing.T) {
	const children, crashes = 8, 3
	var mu sync.Mutex
	brokenIDs := map[string]bool{}
	s := NewStrategy(Policy{BackoffBase: time.Millisecond, Jitter: -1, MaxCrashes: crashes, Window: time.Minute},
		WithClock(func() time.Time { return t0 }),
		WithOnBroken(func(c *actor.PID, _ Decision) { mu.Lock(); brokenIDs[c.Id] = true; mu.Unlock() }))
	defer s.Stop()
	sup := newFakeSupervisor()

	// Each child fails, waits for its restart, and fails again, from its
	// own goroutine; the goroutines end before wg.Wait returns.
	var wg sync.WaitGroup
	for i := range children {
		pid := actor.NewPID("nonhost", fmt.Sprintf("child-%d", i))
		restarted := sup.restarted(pid.Id)
		wg.Go(func() {
			for k := range crashes {
				s.HandleFailure(nil, sup, pid, nil, errors.New("boom"), nil)
				if k == crashes-1 {
					return
				}
				select {
				case <-restarted:
				case <-time.After(waitFor):
					t.Errorf("%s: timed out waiting for restart %d", pid.Id, k+1)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range children {
		id := fmt.Sprintf("child-%d", i)
		if n := len(sup.restarted(id)); n != 0 || sup.stops(id) != 1 || !brokenIDs[id] {
			t.Errorf("%s: %d extra restarts, %d stops, broken %v; want 0, 1, true",
				id, n, sup.stops(id), brokenIDs[id])
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.budgets) != 0 {
		t.Errorf("%d budgets kept after every child broke, want 0", len(s.budgets))
	}
}

func TestStrategyBoundsBudgets(t *testing.T) {
	now := t0
	s := NewStrategy(Policy{BackoffBase: time.Hour, Window: time.Minute},
		WithClock(func() time.Time { return now }), WithMaxChildren(2))
	defer s.Stop()
	sup := newFakeSupervisor()
	fail := func(id string, d time.Duration) {
		now = t0.Add(d)
		s.HandleFailure(nil, sup, actor.NewPID("nonhost", id), nil, errors.New("boom"), nil)
	}
	ids := func() map[string]bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		m := map[string]bool{}
		for id := range s.budgets {
			m[id] = true
		}
		return m
	}

	fail("a", 0)
	fail("b", time.Second)
	fail("c", 2*time.Second) // full: a's last crash is the oldest
	if got := ids(); len(got) != 2 || !got["b"] || !got["c"] {
		t.Errorf("budgets = %v, want b and c", got)
	}
	fail("c", 3*time.Second)
	fail("d", 10*time.Minute) // b and c have no crash in the window
	if got := ids(); len(got) != 1 || !got["d"] {
		t.Errorf("budgets = %v, want d alone", got)
	}
}

func TestStrategyAfterStop(t *testing.T) {
	called := false
	s := NewStrategy(Policy{}, WithOnBroken(func(*actor.PID, Decision) { called = true }))
	s.Stop()
	s.Stop() // idempotent
	sup := newFakeSupervisor()
	s.HandleFailure(nil, sup, actor.NewPID("nonhost", "x"), nil, errors.New("boom"), nil)
	if got := sup.stops("x"); got != 1 {
		t.Errorf("StopChildren calls after Stop = %d, want 1", got)
	}
	if called {
		t.Errorf("OnBroken called after Stop, want not")
	}
	if got := s.pending(); got != 0 {
		t.Errorf("pending restarts after Stop = %d, want 0", got)
	}
}

func TestReasonError(t *testing.T) {
	boom := errors.New("boom")
	if got := reasonError(boom); got != boom {
		t.Errorf("reasonError(%v) = %v, want the error itself", boom, got)
	}
	got := reasonError("oops")
	if !errors.Is(got, ErrPanic) || got.Error() != "supervisor: actor panicked: oops" {
		t.Errorf("reasonError(\"oops\") = %v, want ErrPanic: oops", got)
	}
}

func TestStrategySupersedesPendingRestart(t *testing.T) {
	s := NewStrategy(Policy{BackoffBase: time.Millisecond, Jitter: -1})
	sup := newFakeSupervisor()
	pid := actor.NewPID("nonhost", "x")
	s.HandleFailure(nil, sup, pid, nil, errors.New("boom"), nil)
	s.HandleFailure(nil, sup, pid, nil, errors.New("boom"), nil)
	await(t, sup.restarted("x"), "the restart")
	s.Stop() // waits for any callback still running
	if n := len(sup.restarted("x")); n != 0 {
		t.Errorf("%d extra restarts, want 0: a new failure replaces the pending restart", n)
	}
}
