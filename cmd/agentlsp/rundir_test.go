package main

import "os"

// runDir gives the test binary a runtime directory of its own, so that
// the tests neither see nor start this user's real daemons, and removes
// it after the tests.
func runDir() (cleanup func()) {
	dir, err := os.MkdirTemp("", "agentlsp-cmd-test-run-")
	if err != nil {
		return func() {}
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	return func() { _ = os.RemoveAll(dir) }
}
