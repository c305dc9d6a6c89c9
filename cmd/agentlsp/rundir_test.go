package main

import "os"

// The tests must not see (or start) this user's real daemons: each test
// binary gets a runtime directory of its own.
func init() {
	if dir, err := os.MkdirTemp("", "agentlsp-cmd-test-run-"); err == nil {
		os.Setenv("XDG_RUNTIME_DIR", dir)
	}
}
