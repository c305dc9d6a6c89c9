package supervisor

import (
	"errors"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/google/go-cmp/cmp"
)

// waitFor is how long a test waits for a condition before it fails.
const waitFor = 10 * time.Second

// await receives from ch, failing the test after waitFor.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitFor):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// crash makes the child panic with err.
type crash struct{ err any }

// probe reports a child's lifecycle to the test. Channels are buffered so
// Receive never blocks.
type probe struct {
	started chan struct{}
	stopped chan struct{}
}

func newProbe() probe {
	return probe{started: make(chan struct{}, 64), stopped: make(chan struct{}, 64)}
}

type child struct{ p probe }

func (c *child) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		c.p.started <- struct{}{}
	case *actor.Stopped:
		c.p.stopped <- struct{}{}
	case crash:
		panic(m.err)
	}
}

// parent spawns one child on start and hands its PID to the test.
type parent struct {
	p    probe
	pids chan<- *actor.PID
}

func (p *parent) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*actor.Started); ok {
		p.pids <- ctx.Spawn(actor.PropsFromProducer(func() actor.Actor { return &child{p: p.p} }))
	}
}

// harness is an actor system with a parent supervised by a Strategy.
type harness struct {
	sys      *actor.ActorSystem
	strategy *Strategy
	parent   *actor.PID
	child    *actor.PID
	probe    probe
	events   chan actor.Directive
	sub      *eventstream.Subscription
	baseline int
}

func newHarness(t *testing.T, p Policy, opts ...StrategyOption) *harness {
	t.Helper()
	sys := actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }),
		actor.WithDeadLetterThrottleInterval(time.Millisecond),
	)
	h := &harness{sys: sys, strategy: NewStrategy(p, opts...), probe: newProbe(),
		events: make(chan actor.Directive, 64), baseline: registryCount(sys)}
	h.sub = sys.EventStream.Subscribe(func(evt any) {
		if e, ok := evt.(*actor.SupervisorEvent); ok {
			h.events <- e.Directive
		}
	})
	pids := make(chan *actor.PID, 1)
	props := actor.PropsFromProducer(func() actor.Actor { return &parent{p: h.probe, pids: pids} },
		actor.WithSupervisor(h.strategy))
	h.parent = sys.Root.Spawn(props)
	h.child = await(t, pids, "the child's PID")
	await(t, h.probe.started, "the child's first start")
	return h
}

// close stops the actors and the strategy, checks the registry is back to
// its baseline and shuts the system down.
func (h *harness) close(t *testing.T) {
	t.Helper()
	if err := h.sys.Root.StopFuture(h.parent).Wait(); err != nil {
		t.Errorf("StopFuture(parent).Wait() = %v", err)
	}
	h.strategy.Stop()
	h.sys.EventStream.Unsubscribe(h.sub)
	if got := registryCount(h.sys); got != h.baseline {
		t.Errorf("process registry holds %d processes, want baseline %d", got, h.baseline)
	}
	h.sys.Shutdown()
}

func registryCount(sys *actor.ActorSystem) int {
	n := 0
	for _, m := range sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		n += m.Count()
	}
	return n
}

func TestStrategyRestartsThenStops(t *testing.T) {
	type brokenCall struct {
		child *actor.PID
		d     Decision
	}
	broken := make(chan brokenCall, 1)
	now := at(0)
	h := newHarness(t,
		Policy{BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond, Jitter: -1, MaxCrashes: 3, Window: time.Minute},
		WithClock(func() time.Time { return now }),
		WithRand(func() float64 { return 0.5 }),
		WithOnBroken(func(c *actor.PID, d Decision) { broken <- brokenCall{c, d} }),
	)
	defer h.close(t)

	boom := errors.New("boom")
	for i, delay := range []time.Duration{time.Millisecond, 2 * time.Millisecond} {
		sent := time.Now()
		h.sys.Root.Send(h.child, crash{boom})
		await(t, h.probe.started, "a restart")
		if elapsed := time.Since(sent); elapsed < delay {
			t.Errorf("crash %d: restarted after %v, want at least %v", i+1, elapsed, delay)
		}
	}
	h.sys.Root.Send(h.child, crash{boom})
	await(t, h.probe.stopped, "the child to stop")
	got := await(t, broken, "OnBroken")
	if !got.child.Equal(h.child) {
		t.Errorf("OnBroken child = %v, want %v", got.child, h.child)
	}
	want := outcome{Action: Broken, Attempt: 2, RetryAt: now.Add(time.Minute)}
	if diff := cmp.Diff(want, outcomeOf(got.d)); diff != "" {
		t.Errorf("OnBroken decision (-want +got):\n%s", diff)
	}
	if !errors.Is(got.d.Err, ErrBudgetSpent) || !strings.Contains(got.d.Reason, `"boom"`) {
		t.Errorf("OnBroken decision: Err = %v, Reason = %q; want ErrBudgetSpent quoting \"boom\"", got.d.Err, got.d.Reason)
	}
	if n := len(h.probe.started); n != 0 {
		t.Errorf("%d starts after the child was stopped, want 0", n)
	}
	var directives []actor.Directive
	for range 3 {
		directives = append(directives, await(t, h.events, "a supervisor event"))
	}
	wantDirectives := []actor.Directive{actor.RestartDirective, actor.RestartDirective, actor.StopDirective}
	if diff := cmp.Diff(wantDirectives, directives); diff != "" {
		t.Errorf("supervisor events (-want +got):\n%s", diff)
	}
}

func TestStrategySpawnFailureStopsAtOnce(t *testing.T) {
	broken := make(chan Decision, 1)
	h := newHarness(t, Policy{BackoffBase: time.Millisecond},
		WithOnBroken(func(_ *actor.PID, d Decision) { broken <- d }))
	defer h.close(t)

	err := &messages.SpawnError{Command: "gopls", Err: &exec.Error{Name: "gopls", Err: exec.ErrNotFound}, Hint: "install it"}
	h.sys.Root.Send(h.child, crash{err})
	await(t, h.probe.stopped, "the child to stop")
	d := await(t, broken, "OnBroken")
	if diff := cmp.Diff(outcome{Action: Broken}, outcomeOf(d)); diff != "" {
		t.Errorf("OnBroken decision (-want +got):\n%s", diff)
	}
	if !errors.Is(d.Err, ErrSpawn) || !errors.Is(d.Err, exec.ErrNotFound) {
		t.Errorf("OnBroken decision Err = %v, want ErrSpawn and exec.ErrNotFound", d.Err)
	}
}

func TestStrategyStopCancelsPendingRestart(t *testing.T) {
	h := newHarness(t, Policy{BackoffBase: time.Hour, BackoffMax: time.Hour})
	defer h.close(t)

	h.sys.Root.Send(h.child, crash{"not an error"})
	if got := await(t, h.events, "the supervisor event"); got != actor.RestartDirective {
		t.Fatalf("directive = %v, want %v", got, actor.RestartDirective)
	}
	if got := h.strategy.pending(); got != 1 {
		t.Fatalf("pending restarts = %d, want 1", got)
	}
	h.strategy.Stop()
	if got := h.strategy.pending(); got != 0 {
		t.Errorf("pending restarts after Stop = %d, want 0", got)
	}
	if err := h.sys.Root.StopFuture(h.parent).Wait(); err != nil {
		t.Fatalf("StopFuture(parent).Wait() = %v", err)
	}
	await(t, h.probe.stopped, "the suspended child to stop")
	if n := len(h.probe.started); n != 0 {
		t.Errorf("%d restarts after Stop, want 0", n)
	}
}

// pending returns the number of scheduled restarts.
func (s *Strategy) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.timers)
}
