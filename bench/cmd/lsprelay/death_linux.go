package main

import (
	"os/exec"
	"syscall"
)

// setDeathSignal kills the program when lsprelay dies.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
