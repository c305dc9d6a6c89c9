//go:build unix && !linux

package transport

import "syscall"

// sysProcAttr puts the server in its own process group. These systems have
// no parent death signal: a server that does not read its stdin can
// outlive an agentlsp that was killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
