//go:build unix

package watcher

import (
	"errors"
	"syscall"
)

// running reports whether process pid exists (a process of another user
// counts: it may own a marker directory too).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
