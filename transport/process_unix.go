//go:build unix

package transport

import "syscall"

// killGroup sends SIGKILL to the whole process group. Safe to call at any
// time and more than once.
func (p *process) killGroup() {
	// Setpgid made the process the leader of a group whose id is its pid.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}
