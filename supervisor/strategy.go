package supervisor

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// DefaultMaxChildren is the default number of children whose crash budgets
// a Strategy remembers.
const DefaultMaxChildren = 1024

// Strategy is a protoactor actor.SupervisorStrategy that applies a Policy to
// the panics of an actor's children (a panic's value is an error; any other
// value is wrapped in ErrPanic). Each child, keyed by its PID's Id, has its
// own Budget; protoactor's RestartStatistics are ignored.
//
//   - Restart: the child stays suspended and is restarted after the
//     Decision's Delay by a time.AfterFunc timer. The timer's goroutine is
//     the only one Strategy starts; it sends the restart and ends.
//   - Broken: the child is stopped at once, its budget is forgotten (a child
//     spawned later under the same name starts afresh), and OnBroken, if
//     set, is called.
//
// Every decision is published on the actor system's EventStream as an
// *actor.SupervisorEvent. At most WithMaxChildren budgets are kept: when
// full, budgets with no crash in the window are dropped first, then the one
// whose last crash is oldest.
//
// Stop the Strategy when the actor system shuts down. A Strategy is safe
// for concurrent use; HandleFailure does not block.
type Strategy struct {
	policy      Policy
	now         func() time.Time
	rnd         func() float64
	onBroken    func(child *actor.PID, d Decision)
	maxChildren int

	mu      sync.Mutex
	stopped bool
	budgets map[string]*Budget         // by PID.Id; at most maxChildren
	timers  map[string]*pendingRestart // by PID.Id; one per suspended child
	firing  sync.WaitGroup             // timers scheduled and not yet done
}

// pendingRestart is a scheduled restart of one child.
type pendingRestart struct {
	timer *time.Timer // written and read under Strategy.mu only
}

var _ actor.SupervisorStrategy = (*Strategy)(nil)

// StrategyOption configures a Strategy. Make one with a With... function.
type StrategyOption interface {
	apply(*Strategy)
}

type optionFunc func(*Strategy)

func (f optionFunc) apply(s *Strategy) { f(s) }

// WithClock sets the clock the Strategy reads crash times from (time.Now by
// default). It is called with the Strategy's lock held, so it need not be
// safe for concurrent use. It does not affect the restart timers, which
// always run in real time.
func WithClock(now func() time.Time) StrategyOption {
	return optionFunc(func(s *Strategy) { s.now = now })
}

// WithRand sets the source of the random numbers in [0, 1) used for jitter
// (math/rand/v2.Float64 by default). It is called with the Strategy's lock
// held, so it need not be safe for concurrent use.
func WithRand(rnd func() float64) StrategyOption {
	return optionFunc(func(s *Strategy) { s.rnd = rnd })
}

// WithOnBroken sets a function called after a child was found broken and
// asked to stop, with the Decision. It runs on the supervising actor's
// goroutine, inside HandleFailure: it must not block (send a message). It
// is not called for failures after Stop.
func WithOnBroken(f func(child *actor.PID, d Decision)) StrategyOption {
	return optionFunc(func(s *Strategy) { s.onBroken = f })
}

// WithMaxChildren bounds the number of children whose budgets are kept
// (DefaultMaxChildren; n <= 0 means the default).
func WithMaxChildren(n int) StrategyOption {
	return optionFunc(func(s *Strategy) { s.maxChildren = n })
}

// NewStrategy returns a Strategy applying p. Use it with
// actor.PropsFromProducer(..., actor.WithSupervisor(s)) on the parent.
func NewStrategy(p Policy, opts ...StrategyOption) *Strategy {
	s := &Strategy{
		policy:  p,
		now:     time.Now,
		rnd:     rand.Float64,
		budgets: make(map[string]*Budget),
		timers:  make(map[string]*pendingRestart),
	}
	for _, o := range opts {
		o.apply(s)
	}
	if s.maxChildren <= 0 {
		s.maxChildren = DefaultMaxChildren
	}
	return s
}

// HandleFailure implements actor.SupervisorStrategy: it decides on the
// child's failure, then schedules its restart or stops it. After Stop, a
// failed child is stopped. It does not block.
func (s *Strategy) HandleFailure(system *actor.ActorSystem, sup actor.Supervisor, child *actor.PID,
	_ *actor.RestartStatistics, reason, _ any,
) {
	d, stopped := s.decide(sup, child, reasonError(reason))
	directive := actor.RestartDirective
	if d.Action == Broken {
		directive = actor.StopDirective
	}
	if system != nil {
		system.EventStream.Publish(&actor.SupervisorEvent{Child: child, Reason: reason, Directive: directive})
	}
	if d.Action != Broken {
		return
	}
	sup.StopChildren(child)
	if s.onBroken != nil && !stopped {
		s.onBroken(child, d)
	}
}

// Stop cancels every pending restart and waits for restarts already firing
// to be sent, so that nothing fires afterwards. Children whose restart was
// cancelled stay suspended until they are stopped (stopping their parent
// stops them). Children failing after Stop are stopped. Stop is idempotent
// and safe for concurrent use; it blocks only while a firing callback sends
// its restart message.
func (s *Strategy) Stop() {
	s.mu.Lock()
	s.stopped = true
	for id, p := range s.timers {
		if p.timer.Stop() {
			s.firing.Done() // its callback will never run
		}
		delete(s.timers, id)
	}
	s.mu.Unlock()
	s.firing.Wait()
}

// decide applies the policy to the failure of child under the lock and
// schedules a restart. stopped reports that the Strategy was stopped.
func (s *Strategy) decide(sup actor.Supervisor, child *actor.PID, err error) (d Decision, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		e := fmt.Errorf("%w: child %s failed: %s", ErrStopped, child.Id, errText(err))
		return broken(e, time.Time{}, 0), true
	}
	now := s.now()
	d = Decide(s.policy, s.budget(child.Id, now), err, true, now, s.rnd())
	if d.Action == Broken {
		delete(s.budgets, child.Id)
		return d, false
	}
	s.schedule(sup, child, d.Delay)
	return d, false
}

// schedule arranges for child to be restarted after delay. Called with the
// lock held.
func (s *Strategy) schedule(sup actor.Supervisor, child *actor.PID, delay time.Duration) {
	id := child.Id
	if old, ok := s.timers[id]; ok && old.timer.Stop() {
		s.firing.Done()
	}
	p := &pendingRestart{}
	s.firing.Add(1)
	// The timer's goroutine runs fire once, which sends one system message
	// and returns; Stop cancels the timer or waits for fire to return.
	p.timer = time.AfterFunc(delay, func() { s.fire(id, p, sup, child) })
	s.timers[id] = p
}

// fire restarts child unless its restart p was cancelled or superseded.
func (s *Strategy) fire(id string, p *pendingRestart, sup actor.Supervisor, child *actor.PID) {
	defer s.firing.Done()
	s.mu.Lock()
	current := !s.stopped && s.timers[id] == p
	if current {
		delete(s.timers, id)
	}
	s.mu.Unlock()
	if current {
		sup.RestartChildren(child)
	}
}

// budget returns the budget of the child with the given id, making room for
// a new one if needed. Called with the lock held.
func (s *Strategy) budget(id string, now time.Time) *Budget {
	if b, ok := s.budgets[id]; ok {
		return b
	}
	if len(s.budgets) >= s.maxChildren {
		s.evict(now)
	}
	b := NewBudget(s.policy)
	s.budgets[id] = b
	return b
}

// evict drops the budgets with no crash in the window, and if none, the one
// whose last crash is oldest. Called with the lock held.
func (s *Strategy) evict(now time.Time) {
	oldestID, oldest := "", time.Time{}
	for id, b := range s.budgets {
		if b.Recent(now) == 0 {
			delete(s.budgets, id)
			continue
		}
		if last := b.last(); oldestID == "" || last.Before(oldest) {
			oldestID, oldest = id, last
		}
	}
	if len(s.budgets) >= s.maxChildren {
		delete(s.budgets, oldestID)
	}
}

// reasonError returns a panic's value as an error.
func reasonError(reason any) error {
	if err, ok := reason.(error); ok {
		return err
	}
	return fmt.Errorf("%w: %v", ErrPanic, reason)
}
