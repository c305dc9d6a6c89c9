// Package actors holds the agentlsp actors: one server actor per (language
// server, project root) owning one process and its connection; later the
// router, the diagnostics actor and the file watcher.
//
// Rules every actor here follows: Receive is a short type switch that never
// blocks; blocking work (spawning, the initialize handshake, waiting for a
// process, graceful shutdown) runs in goroutines owned by the actor and
// joined by the runtime's Reaper, which report back by message; every
// request message gets exactly one reply.
package actors

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
// process watcher). The runtime owns it and waits on it at shutdown. Safe
// for concurrent use.
type Reaper struct {
	wg sync.WaitGroup
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
