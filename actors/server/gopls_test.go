package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

const brokenMain = `package main

import "fmt"

func main() {
	fmt.Println(missing)
}
`

// TestRealGopls runs the server actor against real gopls: handshake, an
// error diagnostic at the right place, a kill -9 with restart, re-opened
// document and diagnostics back, then a fix that clears them.
func TestRealGopls(t *testing.T) {
	gopls := testenv.ServerBinary(t, "gopls")
	root := testenv.CopyDir(t, actortest.Testdata("gomod"))
	h := actortest.New(t)
	srv := &config.Server{
		ID: "gopls", Command: gopls, Extensions: map[string]string{".go": "go"},
		Settings:       map[string]any{"gopls": map[string]any{}},
		StartupTimeout: config.Duration(60 * time.Second),
	}
	pid := h.Spawn(srv, root, nil)
	h.AwaitState(messages.StateRunning, 1, 90*time.Second)

	path := filepath.Join(root, "main.go")
	uri := paths.URI(path)
	h.Open(pid, uri, brokenMain)
	want := []messages.Diagnostic{{
		Range:    messages.Range{Start: messages.Position{Line: 5, Character: 13}, End: messages.Position{Line: 5, Character: 20}},
		Severity: messages.SeverityError, Code: "UndeclaredName", Source: "compiler", Message: "undefined: missing",
	}}
	got := h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool {
		return d.Version == 1 && len(d.Diagnostics) > 0
	})
	if diff := cmp.Diff(want, got.Diagnostics); diff != "" {
		t.Errorf("gopls diagnostics (-want +got):\n%s", diff)
	}

	first := h.Status(pid)
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.AwaitState(messages.StateRunning, 2, 90*time.Second)
	again := h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool {
		return d.Incarnation == 2 && len(d.Diagnostics) > 0
	})
	if diff := cmp.Diff(want, again.Diagnostics); diff != "" || again.Version != 1 {
		t.Errorf("diagnostics after restart v%d (-want +got):\n%s", again.Version, diff)
	}

	fixed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h.Change(pid, uri, string(fixed))
	clean := h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return d.Version == 2 })
	if len(clean.Diagnostics) != 0 {
		t.Errorf("diagnostics after fix = %+v, want none", clean.Diagnostics)
	}
	// Hover answers on the restarted server, for the fixed text.
	resp := h.Request(pid, "textDocument/hover", map[string]any{
		"textDocument": map[string]string{"uri": uri},
		"position":     map[string]int{"line": 10, "character": 14},
	}, 0)
	if resp.Err != nil || !strings.Contains(string(resp.Result), "func Greeting(name string) string") {
		t.Errorf("hover = %s, %v", resp.Result, resp.Err)
	}
}
