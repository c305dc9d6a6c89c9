package benchcmd

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentlsp/agentlsp/daemon/rundir"
)

// PrivateDaemons points this process and the agentlsp processes it starts
// at a runtime directory of their own under tmp (XDG_RUNTIME_DIR), so that
// the shared daemons a run starts (agentlsp serve, started by --shared)
// are its own, and returns the function that stops them: SIGTERM to each
// daemon of that directory, then a wait of up to 5 s for them to exit
// (they stop their servers first), and XDG_RUNTIME_DIR as it was. Call
// the stop before removing tmp. Not for concurrent use: it sets the
// process's environment.
func PrivateDaemons(tmp string) (stop func(), err error) {
	run := filepath.Join(tmp, "run")
	if err := os.Mkdir(run, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return func() {}, err
	}
	old, had := os.LookupEnv("XDG_RUNTIME_DIR")
	restore := func() {
		if had {
			os.Setenv("XDG_RUNTIME_DIR", old)
		} else {
			os.Unsetenv("XDG_RUNTIME_DIR")
		}
	}
	if err := os.Setenv("XDG_RUNTIME_DIR", run); err != nil {
		return func() {}, err
	}
	return func() {
		stopDaemons()
		restore()
	}, nil
}

// stopDaemons signals the daemons of the runtime directory and waits
// (bounded) for them to be gone.
func stopDaemons() {
	dir, err := rundir.Dir()
	if err != nil {
		return
	}
	entries, _ := rundir.List(dir)
	var pids []int
	for _, e := range entries {
		if e.PID > 0 && syscall.Kill(e.PID, syscall.SIGTERM) == nil {
			pids = append(pids, e.PID)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range pids {
		for syscall.Kill(p, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
