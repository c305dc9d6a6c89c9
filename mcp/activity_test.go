package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// TestActivity: what a progress notification says a server does.
func TestActivity(t *testing.T) {
	crash := errors.New("exit status 2\nstderr: panic: boom")
	long := errors.New(strings.Repeat("x", 200))
	for _, tc := range []struct {
		info messages.ServerInfo
		want string
	}{
		{messages.ServerInfo{State: messages.StateStarting}, "starting"},
		{messages.ServerInfo{State: messages.StateStopped}, "starting"},
		{messages.ServerInfo{State: messages.StateStarting, Work: "Setting up workspace"}, "Setting up workspace"},
		{messages.ServerInfo{State: messages.StateRunning, Work: "Loading packages: 3/9"}, "Loading packages: 3/9"},
		{messages.ServerInfo{State: messages.StateRunning}, ""},
		{messages.ServerInfo{State: messages.StateStopping}, ""},
		{messages.ServerInfo{State: messages.StateError, Err: crash}, "restarting after a crash (exit status 2)"},
		{messages.ServerInfo{State: messages.StateError, Err: long}, "restarting after a crash (" + strings.Repeat("x", 120) + "...)"},
		{messages.ServerInfo{State: messages.StateError}, "restarting after a crash"},
		{messages.ServerInfo{State: messages.StateError, Broken: true, Err: crash}, ""},
	} {
		if got := activity(tc.info); got != tc.want {
			t.Errorf("activity(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}
