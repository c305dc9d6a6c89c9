package main

import (
	"strings"
	"testing"
)

func TestServeRefusesNonLoopbackHTTP(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", "192.168.1.2:80", ":8080", "example.com:80"} {
		args := []string{"serve", "--http", addr}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitUsage, stdout, stderr)
		if !strings.Contains(stderr, "--http") {
			t.Errorf("%v: stderr %q does not name --http", args, stderr)
		}
	}
}

func TestStatusWithoutDaemons(t *testing.T) {
	stdout, stderr, code := cli(t, "status")
	wantExit(t, []string{"status"}, code, exitOK, stdout, stderr)
	if !strings.Contains(stdout, "No agentlsp daemon runs") {
		t.Errorf("status = %q, want that no daemon runs", stdout)
	}
	stdout, _, code = cli(t, "status", "--json")
	if code != exitOK || !strings.Contains(stdout, `"daemons": null`) {
		t.Errorf("status --json = %d %q, want an empty list", code, stdout)
	}
}
