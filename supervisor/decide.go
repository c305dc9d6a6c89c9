package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentlsp/agentlsp/messages"
)

// Kind classifies a server failure.
type Kind int

const (
	// Crash: the server ran and failed (exited, panicked, broke its
	// connection). Crashes are restarted within the budget.
	Crash Kind = iota
	// SpawnFailure: the server cannot be started at all. Restarting would
	// fail the same way, so it is broken at once.
	SpawnFailure
)

// String returns "crash" or "spawn failure".
func (k Kind) String() string {
	if k == SpawnFailure {
		return "spawn failure"
	}
	return "crash"
}

// Classify returns SpawnFailure when err says the server cannot be started:
// a *messages.SpawnError, or an error matching (errors.Is) exec.ErrNotFound,
// exec.ErrDot, fs.ErrNotExist, fs.ErrPermission, syscall.ENOENT,
// syscall.EACCES or syscall.ENOEXEC, such as the *exec.Error or
// *fs.PathError that exec.Cmd.Start returns. Anything else, nil included, is
// a Crash.
func Classify(err error) Kind {
	if err == nil {
		return Crash
	}
	var se *messages.SpawnError
	switch {
	case errors.As(err, &se),
		errors.Is(err, exec.ErrNotFound),
		errors.Is(err, exec.ErrDot),
		errors.Is(err, fs.ErrNotExist),
		errors.Is(err, fs.ErrPermission),
		errors.Is(err, syscall.ENOENT),
		errors.Is(err, syscall.EACCES),
		errors.Is(err, syscall.ENOEXEC):
		return SpawnFailure
	}
	return Crash
}

// Action is what to do with a failed server.
type Action int

const (
	// Restart the server after Decision.Delay.
	Restart Action = iota + 1
	// Broken: do not restart; report the server broken (see
	// Decision.RetryAt for when a new try is allowed).
	Broken
)

// String returns "restart" or "broken".
func (a Action) String() string {
	switch a {
	case Restart:
		return "restart"
	case Broken:
		return "broken"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Decision is the answer of Decide.
type Decision struct {
	Action Action
	// Delay before restarting; zero when Broken.
	Delay time.Duration
	// Attempt is the number of crashes within the window minus one: 0 for
	// the first restart. Zero for a spawn failure or a disabled restart.
	Attempt int
	// Reason explains the decision and quotes the error.
	Reason string
	// RetryAt is when a new try is allowed after a Broken decision. Zero
	// means no time gate: try again when the cause is fixed (the binary is
	// installed, the configuration changed), for example on a later request.
	RetryAt time.Time
	// Err is nil for Restart. For Broken it matches ErrSpawn,
	// ErrNotRestartable, ErrBudgetSpent or ErrStopped, and a spawn failure's
	// cause (for example exec.ErrNotFound).
	Err error
}

// Decide decides what to do after a server failed with err at now:
//
//   - a spawn failure (see Classify) is Broken at once, without using the
//     budget, with a zero RetryAt;
//   - if restartable is false, Broken, without using the budget;
//   - otherwise the crash is recorded in b; if that spends the budget,
//     Broken with b's RetryAt; else Restart after p.Backoff(attempt, rnd),
//     where attempt is the number of crashes within the window minus one.
//
// b must not be nil and should be made from the same Policy. rnd is a
// random number in [0, 1). Decide does not block; it is as safe for
// concurrent use as b is (not).
func Decide(p Policy, b *Budget, err error, restartable bool, now time.Time, rnd float64) Decision {
	if Classify(err) == SpawnFailure {
		return broken(spawnError(err), time.Time{}, 0)
	}
	if !restartable {
		return broken(fmt.Errorf("%w: %s", ErrNotRestartable, errText(err)), time.Time{}, 0)
	}
	b.Record(now)
	attempt := b.Recent(now) - 1
	if b.Spent(now) {
		p = p.withDefaults()
		retry := b.RetryAt()
		e := fmt.Errorf("%w: %d crashes within %v, retry at %s; last: %s",
			ErrBudgetSpent, p.MaxCrashes, p.Window, retry.Format(time.RFC3339), errText(err))
		return broken(e, retry, attempt)
	}
	delay := p.Backoff(attempt, rnd)
	return Decision{
		Action:  Restart,
		Delay:   delay,
		Attempt: attempt,
		Reason:  fmt.Sprintf("crash %d within %v: %s; restarting in %v", attempt+1, p.withDefaults().Window, errText(err), delay),
	}
}

// broken returns a Broken Decision for err.
func broken(err error, retryAt time.Time, attempt int) Decision {
	return Decision{Action: Broken, Attempt: attempt, Reason: err.Error(), RetryAt: retryAt, Err: err}
}

// spawnError returns err as an error matching ErrSpawn: err itself if it
// already does, else a *messages.SpawnError naming the command found in err.
func spawnError(err error) error {
	if errors.Is(err, ErrSpawn) {
		return err
	}
	se := &messages.SpawnError{Err: err}
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		se.Command = ee.Name
	case errors.As(err, &pe):
		se.Command = pe.Path
	}
	return se
}

// errText quotes err, or says the process exited without one.
func errText(err error) string {
	if err == nil {
		return "exited without an error"
	}
	return fmt.Sprintf("%q", err.Error())
}
