// Package lifecycle is what every agentlsp actor needs to own its
// goroutines and time: the actor system (NewSystem), the Reaper that joins
// the goroutines actors start for blocking work, per-actor Timers, and the
// Clock they run on (real time, or a FakeClock in tests); and, for the
// actors orchestrators message directly, the answer to a message they do
// not take (Refuse) and a mailbox that survives a nil (NilSafeMailbox).
//
// It starts no goroutine of its own except through Reaper.Go (joined by
// Reaper.Wait) and the timer callbacks of the Clock (each sends one
// message and ends).
package lifecycle

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// NewSystem returns an actor system configured for agentlsp: protoactor's
// own logging goes to logger (nil discards it; never stdout), developer
// supervision logging stays off, and the dead-letter throttle uses a short
// interval so its goroutine ends quickly after a burst.
func NewSystem(logger *slog.Logger) *actor.ActorSystem {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }),
		actor.WithDeveloperSupervisionLogging(false),
		actor.WithDeadLetterRequestLogging(false),
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond),
	)
}

// Reaper joins the goroutines actors start for work that may outlive them
// (a graceful process shutdown after the actor stopped, an incarnation's
// process watcher, a file read). The runtime owns it and waits on it at
// shutdown. Safe for concurrent use.
type Reaper struct {
	wg     sync.WaitGroup
	once   sync.Once
	ctx    context.Context // cancelled by Hurry
	cancel context.CancelFunc
}

// Context is cancelled when the owner is out of time (Hurry): work that
// can end early, such as a graceful shutdown, derives its context from it.
// Safe for concurrent use.
func (r *Reaper) Context() context.Context {
	r.once.Do(func() { r.ctx, r.cancel = context.WithCancel(context.Background()) })
	return r.ctx
}

// Hurry cancels Context. Safe to call more than once.
func (r *Reaper) Hurry() {
	r.Context()
	r.cancel()
}

// Go runs f in a goroutine the reaper joins.
func (r *Reaper) Go(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// Wait blocks until every goroutine started with Go has returned, or ctx
// ends; it reports whether all returned.
func (r *Reaper) Wait(ctx context.Context) bool {
	done := make(chan struct{})
	// Lives until the wait group drains; if ctx ends first it still ends
	// once the stragglers return (each is bounded by its own timeout).
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Sender returns a function that delivers messages to pid from any
// goroutine (a reaper goroutine's report, a timer).
func Sender(ctx actor.Context, pid *actor.PID) func(any) {
	root := ctx.ActorSystem().Root
	return func(m any) { root.Send(pid, m) }
}
