package transport

import (
	"context"
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
type outbox struct {
	mu      sync.Mutex
	ops     []op
	max     int
	closed  bool
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
	select {
	case b.signal <- struct{}{}:
	default:
	}
	return nil
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
				continue
			}
			o.run()
		}
	}
}

func (b *outbox) pop() (op, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.ops) == 0 {
		return op{}, false
	}
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
