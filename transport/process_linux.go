package transport

import (
	"runtime"
	"syscall"
)

// sysProcAttr puts the server in its own process group and asks the kernel
// to SIGKILL it when its parent dies: then no server outlives agentlsp,
// however agentlsp ends (even by SIGKILL), including a server that does not
// read its stdin and so never sees it close.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// start starts the process and its waiter. The parent death signal fires
// when the OS thread that forked the child exits, not the process (see
// prctl(2), PR_SET_PDEATHSIG): Go may end an idle thread at any time, so
// the child is started from a goroutine locked to its thread, and that
// goroutine also waits for it. It never unlocks, so its thread exits with
// it, only after the child has been reaped. It blocks until the process
// has started or failed to.
func (p *process) start() error {
	started := make(chan error, 1)
	// The waiter lives on its own locked thread until the process has
	// exited and been reaped; joined by wait (through exited).
	go p.startLocked(started)
	return <-started
}

// startLocked is the waiter: it starts the process on a thread no other
// goroutine will use, reports the outcome on started, then reaps it.
func (p *process) startLocked(started chan<- error) {
	// Never unlocked: when this goroutine returns, its thread exits too.
	runtime.LockOSThread()
	if err := p.cmd.Start(); err != nil {
		started <- err
		return
	}
	started <- nil
	p.reap()
}
