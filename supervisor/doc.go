// Package supervisor holds agentlsp's restart policy for language servers:
// what to do when a server process (or the actor that owns it) fails.
//
// The core is pure and single-threaded. Policy computes the capped
// exponential backoff with jitter, Budget counts crashes in a sliding window
// (a circuit breaker: N crashes within the window open it, and one new try
// is allowed once the oldest of them has left the window), Classify tells a
// server that cannot start from one that crashed, and Decide combines them
// into a Decision: restart after a delay, or broken. These read no clock and
// draw no random numbers: time and randomness are passed in. Budget is not
// safe for concurrent use; each one is owned by one actor.
//
// Strategy applies the same policy to actor panics as a protoactor
// actor.SupervisorStrategy. It is safe for concurrent use.
//
// Goroutines: the package starts none, except the timers of Strategy. A
// delayed restart is a time.AfterFunc; its goroutine lives only while its
// callback runs (it sends one system message and returns). Strategy.Stop
// cancels the timers not yet fired and waits for callbacks already running.
package supervisor

import (
	"errors"

	"github.com/agentlsp/agentlsp/messages"
)

// Sentinel errors, carried in Decision.Err. Match them with errors.Is.
var (
	// ErrSpawn: the server cannot be started at all (missing executable,
	// no permission): messages.ErrSpawn, matched by *messages.SpawnError.
	ErrSpawn = messages.ErrSpawn
	// ErrNotRestartable: the server failed and its configuration forbids
	// restarting it.
	ErrNotRestartable = errors.New("supervisor: restart disabled")
	// ErrBudgetSpent: the server crashed Policy.MaxCrashes times within
	// Policy.Window.
	ErrBudgetSpent = errors.New("supervisor: crash budget spent")
	// ErrPanic wraps an actor's panic value that was not an error.
	ErrPanic = errors.New("supervisor: actor panicked")
	// ErrStopped: a child failed after its Strategy was stopped.
	ErrStopped = errors.New("supervisor: strategy stopped")
)
