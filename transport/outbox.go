package transport

import (
	"context"
	"slices"
	"sync"
)

// op is one queued write: run performs it on the writer goroutine, abort
// is called instead when the connection ends first (so a call's callback
// still runs exactly once).
type op struct {
	run   func()
	abort func(error)
}

// outbox keeps every message to the server in one ordered queue, written by
// a single writer goroutine: a didChange queued before a request reaches the
// server before it, and the read loop never writes (a server blocked on a
// full stdout while we block on its full stdin would deadlock us both).
// A sender may write itself instead (inline) when nothing is queued and
// nobody writes, as long as it never waits for the server to read.
type outbox struct {
	mu      sync.Mutex
	ops     []op
	max     int
	closed  bool
	busy    bool          // a write is under way: the writer's, or a sender's inline
	signal  chan struct{} // capacity 1: "ops is not empty"
	stopped chan struct{} // closed when run returns
}

func newOutbox(max int) *outbox {
	return &outbox{max: max, signal: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// push queues o. It never blocks; it fails with ErrClosed after the
// connection ended and ErrQueueFull when max ops already wait.
func (b *outbox) push(o op) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	if len(b.ops) >= b.max {
		return ErrQueueFull
	}
	b.ops = append(b.ops, o)
	b.wake()
	return nil
}

// inline gives the caller the turn to write when nothing is queued and
// nobody writes, and runs try, which must not wait for the server: it
// returns what is left to write (run first, before anything queued
// meanwhile), or nil. False: the turn was not free, try did not run.
func (b *outbox) inline(try func() *op) bool {
	b.mu.Lock()
	if b.closed || b.busy || len(b.ops) > 0 {
		b.mu.Unlock()
		return false
	}
	b.busy = true
	b.mu.Unlock()
	rest := try()
	b.mu.Lock()
	b.busy = false
	closed := b.closed
	if rest != nil && !closed {
		b.ops = slices.Insert(b.ops, 0, *rest)
	}
	if len(b.ops) > 0 {
		b.wake()
	}
	b.mu.Unlock()
	if rest != nil && closed {
		rest.abort(ErrClosed)
	}
	return true
}

// wake tells the writer ops wait; b.mu is held.
func (b *outbox) wake() {
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// run is the writer goroutine: it performs ops in order until ctx (the
// connection's life) ends, then aborts whatever is left with cause().
func (b *outbox) run(ctx context.Context, cause func() error) {
	defer close(b.stopped)
	for {
		select {
		case <-ctx.Done():
			b.close(cause())
			return
		case <-b.signal:
		}
		for {
			o, ok := b.pop()
			if !ok {
				break
			}
			if ctx.Err() != nil {
				o.abort(cause())
			} else {
				o.run()
			}
			b.mu.Lock()
			b.busy = false
			b.mu.Unlock()
		}
	}
}

// pop takes the next op and the turn to write; false when none waits or
// a sender writes inline (it signals when it is done).
func (b *outbox) pop() (op, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.ops) == 0 || b.busy {
		return op{}, false
	}
	b.busy = true
	o := b.ops[0]
	b.ops[0] = op{}
	b.ops = b.ops[1:]
	return o, true
}

// close refuses further pushes and aborts the ops still queued.
func (b *outbox) close(err error) {
	b.mu.Lock()
	b.closed = true
	rest := b.ops
	b.ops = nil
	b.mu.Unlock()
	for _, o := range rest {
		o.abort(err)
	}
}

// wait blocks until the writer has returned.
func (b *outbox) wait() { <-b.stopped }
