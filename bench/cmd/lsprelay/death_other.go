//go:build !linux

package main

import "os/exec"

// setDeathSignal does nothing: only Linux has a parent-death signal.
func setDeathSignal(*exec.Cmd) {}
