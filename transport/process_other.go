//go:build !unix

package transport

import (
	"os"
	"syscall"
)

// sysProcAttr is nil: the server starts as a plain child. Windows has no
// process groups to kill at once nor a parent death signal; a job object
// would give both.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the server process (only it: its own children live on).
// Safe to call at any time and more than once.
func (p *process) killGroup() {
	_ = p.cmd.Process.Kill()
}

// lockDir locks nothing: the platform has no flock.
func lockDir(string, bool) *os.File { return nil }
