//go:build unix

package transport

import (
	"os"
	"syscall"
)

// killGroup sends SIGKILL to the whole process group. Safe to call at any
// time and more than once.
func (p *process) killGroup() {
	// Setpgid made the process the leader of a group whose id is its pid.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// lockDir opens dir and locks it without waiting, shared or exclusive, as
// flock(2) does: the lock ends when the file is closed, or the process
// ends however it ends. Nil if it cannot be opened or locked.
func lockDir(dir string, exclusive bool) *os.File {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil
	}
	return f
}
