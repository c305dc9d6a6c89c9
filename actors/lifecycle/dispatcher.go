package lifecycle

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// workerIdle is how long a Dispatcher's worker waits for another mailbox
// to run before it ends.
const workerIdle = 2 * time.Second

// Dispatcher runs actors' mailboxes (actor.WithDispatcher) on workers
// that stay while mailboxes keep waking, where protoactor's default
// dispatcher starts a goroutine each time a mailbox wakes. A worker's stack
// has grown to what the actors need, so a message does not pay for
// growing a fresh goroutine's stack again (runtime.copystack was about a
// tenth of agentlsp's CPU per MCP call, docs/BENCHMARKS.md). Workers are
// started with the Reaper, end after workerIdle without work and at
// Close; a mailbox that wakes after Close runs on a goroutine of its own,
// as with the default dispatcher. Safe for concurrent use.
type Dispatcher struct {
	reaper     *Reaper
	throughput int
	idleFor    time.Duration // a worker's wait for work before it ends: workerIdle
	work       chan func()   // unbuffered: a send succeeds only to an idle worker
	done       chan struct{}
	mu         sync.Mutex
	closed     bool
	idle       atomic.Int32 // workers waiting for work (tests)
}

// NewDispatcher returns a dispatcher whose workers r joins; throughput is
// how many messages a mailbox handles before it yields.
func NewDispatcher(r *Reaper, throughput int) *Dispatcher {
	return &Dispatcher{reaper: r, throughput: throughput, idleFor: workerIdle, work: make(chan func()), done: make(chan struct{})}
}

// Options are the props options that run a mailbox on d: none on nil
// (protoactor's default dispatcher).
func (d *Dispatcher) Options() []actor.PropsOption {
	if d == nil {
		return nil
	}
	return []actor.PropsOption{actor.WithDispatcher(d)}
}

// Throughput implements actor.Dispatcher.
func (d *Dispatcher) Throughput() int { return d.throughput }

// Schedule implements actor.Dispatcher: fn runs on an idle worker, or on a
// new one.
func (d *Dispatcher) Schedule(fn func()) {
	select {
	case d.work <- fn:
		return
	default:
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		go fn() // ends when the mailbox is empty, as protoactor's own
		return
	}
	d.reaper.Go(func() { d.worker(fn) })
}

// worker runs fn, then whatever it is given, until it has been idle for
// d.idleFor or the dispatcher is closed.
func (d *Dispatcher) worker(fn func()) {
	fn()
	idle := time.NewTimer(d.idleFor)
	defer idle.Stop()
	for {
		d.idle.Add(1)
		select {
		case fn := <-d.work:
			d.idle.Add(-1)
			fn()
			idle.Reset(d.idleFor)
		case <-idle.C:
			d.idle.Add(-1)
			return
		case <-d.done:
			d.idle.Add(-1)
			return
		}
	}
}

// Close ends the idle workers and those busy once they finish; it does
// not wait (the Reaper does). Safe to call more than once, and on nil.
func (d *Dispatcher) Close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.closed = true
		close(d.done)
	}
}
