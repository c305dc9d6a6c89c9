package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

const docURI = "file:///work/a.fake"

func TestHandshakeCapabilitiesAndDiagnostics(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)

	st := h.Status(pid)
	if !strings.Contains(string(st.Capabilities), `"hoverProvider":true`) {
		t.Errorf("capabilities = %s, want hoverProvider", st.Capabilities)
	}
	var recs []testenv.Record
	testenv.Eventually(t, 10*time.Second, "handshake recorded", func() bool {
		recs = testenv.Records(t, record)
		return len(recs) >= 3
	})
	if diff := cmp.Diff([]string{"initialize", "initialized", "workspace/didChangeConfiguration"}, testenv.Methods(recs)[:3]); diff != "" {
		t.Errorf("handshake (-want +got):\n%s", diff)
	}
	var init struct {
		Capabilities struct {
			TextDocument struct {
				PublishDiagnostics struct{ VersionSupport bool } `json:"publishDiagnostics"`
				Diagnostic         *struct{}                     `json:"diagnostic"`
				DocumentSymbol     struct {
					Hierarchical bool `json:"hierarchicalDocumentSymbolSupport"`
				} `json:"documentSymbol"`
				Definition struct{ LinkSupport bool } `json:"definition"`
			} `json:"textDocument"`
			Workspace struct {
				Configuration bool `json:"configuration"`
				WatchedFiles  struct {
					Dynamic bool `json:"dynamicRegistration"`
				} `json:"didChangeWatchedFiles"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(recs[0].Params, &init); err != nil {
		t.Fatal(err)
	}
	c := init.Capabilities
	if !c.TextDocument.PublishDiagnostics.VersionSupport || c.TextDocument.Diagnostic == nil ||
		!c.TextDocument.DocumentSymbol.Hierarchical || !c.TextDocument.Definition.LinkSupport ||
		!c.Workspace.Configuration || !c.Workspace.WatchedFiles.Dynamic {
		t.Errorf("client capabilities incomplete: %s", recs[0].Params)
	}
	if got := string(recs[2].Params); !strings.Contains(got, `"answer":42`) {
		t.Errorf("didChangeConfiguration params = %s, want the settings", got)
	}

	synced := h.Open(pid, docURI, "package a\nvar x = 1 // ERROR: boom\n")
	if synced.Err != nil || synced.Version != 1 {
		t.Fatalf("open = %+v", synced)
	}
	d := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Version == 1 })
	want := []messages.Diagnostic{{
		Range:    messages.Range{Start: messages.Position{Line: 1, Character: 13}, End: messages.Position{Line: 1, Character: 24}},
		Severity: messages.SeverityError, Code: "E1", Source: "fake", Message: "boom",
	}}
	if diff := cmp.Diff(want, d.Diagnostics); diff != "" || !d.HasVersion || d.ServerID != "fake" {
		t.Errorf("diagnostics (-want +got):\n%s (HasVersion %v)", diff, d.HasVersion)
	}
}

func TestDocumentSync(t *testing.T) {
	texts := []string{
		"héllo wörld\nsecond line\n",
		"héllo wörld\nsecond 😀 line\n",
		"héllo 😀 wörld\nsecond 😀 line\nthird\n",
		"third\n",
		"",
		"new content ✓\n",
	}
	for _, mode := range []string{"incremental", "full"} {
		t.Run(mode, func(t *testing.T) {
			h := actortest.New(t)
			srv, record := actortest.FakeServer(t, "--sync", mode)
			pid := h.Spawn(srv, t.TempDir(), nil)
			h.Open(pid, docURI, texts[0])
			for i, text := range texts[1:] {
				s := h.Change(pid, docURI, text)
				if s.Err != nil || s.Version != int32(i+2) || !s.Changed {
					t.Fatalf("change %d = %+v", i, s)
				}
				got, version := h.DocumentText(pid, docURI)
				if got != text || version != int32(i+2) {
					t.Fatalf("fake text after change %d = %q v%d, want %q v%d", i, got, version, text, i+2)
				}
			}
			if s := h.Change(pid, docURI, texts[len(texts)-1]); s.Changed || s.Version != int32(len(texts)) {
				t.Errorf("no-op change = %+v, want unchanged version %d", s, len(texts))
			}
			h.Ask(pid, &messages.SaveDocument{URI: docURI})
			closed := h.Ask(pid, &messages.CloseDocument{URI: docURI}).(*messages.DocumentSynced)
			if closed.Err != nil {
				t.Errorf("close = %+v", closed)
			}
			if s := h.Change(pid, docURI, "after close"); !errors.Is(s.Err, messages.ErrNotOpen) {
				t.Errorf("change after close = %+v, want ErrNotOpen", s)
			}
			// Re-opening continues the version sequence.
			if s := h.Open(pid, docURI, "again\n"); s.Version != int32(len(texts)+1) {
				t.Errorf("re-open version = %d, want %d", s.Version, len(texts)+1)
			}
			testenv.Eventually(t, 10*time.Second, "didSave, didClose, didOpen at the fake", func() bool {
				m := testenv.Methods(testenv.Records(t, record))
				return len(m) >= 3 && cmp.Equal(m[len(m)-3:], []string{"textDocument/didSave", "textDocument/didClose", "textDocument/didOpen"})
			})
			for _, r := range testenv.Records(t, record) {
				if r.Method != "textDocument/didChange" {
					continue
				}
				hasRange := strings.Contains(string(r.Params), `"range"`)
				if hasRange != (mode == "incremental") {
					t.Errorf("%s sync sent %s", mode, r.Params)
				}
			}
		})
	}
}

func TestRestartAfterKillReopensDocuments(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), func(c *server.Config) {
		c.Policy.BackoffBase, c.Policy.BackoffMax = 300*time.Millisecond, time.Second
	})
	h.Open(pid, docURI, "one\n")
	h.Change(pid, docURI, "one\ntwo // ERROR: after restart\n")
	h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Version == 2 })
	first := h.Status(pid)

	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	crashed := h.AwaitState(messages.StateError, 1, 10*time.Second)
	crashAt := time.Now()
	if crashed.Broken || !errors.Is(crashed.Err, messages.ErrServerCrashed) {
		t.Errorf("after kill: %+v, want a crash, not broken", crashed)
	}
	h.AwaitState(messages.StateStarting, 2, 10*time.Second)
	if d := time.Since(crashAt); d < 250*time.Millisecond {
		t.Errorf("restarted after %v, want the 300ms backoff", d)
	}
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	d := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Incarnation == 2 })
	if d.Version != 2 || len(d.Diagnostics) != 1 || d.Diagnostics[0].Message != "after restart" {
		t.Errorf("diagnostics after restart = %+v", d)
	}
	second := h.Status(pid)
	if second.PID == first.PID || second.Restarts != 1 || second.OpenDocuments[docURI] != 2 {
		t.Errorf("status after restart = pid %d (was %d), restarts %d, docs %v", second.PID, first.PID, second.Restarts, second.OpenDocuments)
	}
	if text, v := h.DocumentText(pid, docURI); text != "one\ntwo // ERROR: after restart\n" || v != 2 {
		t.Errorf("re-opened text = %q v%d", text, v)
	}
}

func TestCrashBudgetSpentIsBrokenWithStderr(t *testing.T) {
	h := actortest.New(t)
	// Every incarnation dies on its third message: right after the handshake.
	srv, _ := actortest.FakeServer(t, "--crash-after", "3", "--stderr", "fake server says hello")
	srv.MaxRestarts = 3
	pid := h.Spawn(srv, t.TempDir(), nil)
	broken := h.Await("broken", 30*time.Second, func(e any) bool {
		s, ok := e.(*messages.StateChanged)
		return ok && s.Broken
	}).(*messages.StateChanged)
	if broken.Incarnation != 3 {
		t.Errorf("broken at incarnation %d, want 3", broken.Incarnation)
	}
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	var se *messages.ServerError
	if !errors.Is(resp.Err, messages.ErrServerBroken) || !errors.As(resp.Err, &se) {
		t.Fatalf("request to broken server = %v, want ErrServerBroken", resp.Err)
	}
	tail := strings.Join(se.Stderr, "\n")
	if !strings.Contains(tail, "crashing after 3 messages") || !strings.Contains(tail, "fake server says hello") {
		t.Errorf("stderr tail = %q", tail)
	}
	if !strings.Contains(resp.Err.Error(), "last stderr lines") {
		t.Errorf("error text does not quote stderr: %v", resp.Err)
	}
}

func TestMissingBinaryBrokenAtOnceThenRetried(t *testing.T) {
	h := actortest.New(t)
	dir := t.TempDir()
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv, _ := actortest.FakeServer(t)
	srv.Command = "agentlsp-fake-not-installed"
	srv.InstallHint = "install it: go install example.com/fake@latest"
	pid := h.Spawn(srv, t.TempDir(), nil)

	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if !errors.Is(resp.Err, messages.ErrServerBroken) {
		t.Fatalf("request = %v, want ErrServerBroken", resp.Err)
	}
	for _, want := range []string{"agentlsp-fake-not-installed", "executable file not found", "go install example.com/fake@latest"} {
		if !strings.Contains(resp.Err.Error(), want) {
			t.Errorf("error %q lacks %q", resp.Err, want)
		}
	}
	if st := h.Status(pid); st.Restarts != 0 || st.Incarnation != 1 || !st.Broken {
		t.Errorf("status = restarts %d, incarnation %d, broken %v; want 0, 1, true", st.Restarts, st.Incarnation, st.Broken)
	}

	// Once the binary exists, the next request starts it.
	exe, _ := os.Executable()
	if err := os.Symlink(exe, filepath.Join(dir, "agentlsp-fake-not-installed")); err != nil {
		t.Fatal(err)
	}
	resp = h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if resp.Err != nil || !strings.Contains(string(resp.Result), "fake hover") {
		t.Errorf("request after install = %s, %v", resp.Result, resp.Err)
	}
}

func TestStartupTimeout(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--hang-on", "initialize")
	srv.StartupTimeout = config.Duration(300 * time.Millisecond)
	pid := h.Spawn(srv, t.TempDir(), nil)
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if !errors.Is(resp.Err, messages.ErrStartupTimeout) {
		t.Errorf("request = %v, want ErrStartupTimeout", resp.Err)
	}
}

func TestGarbageFrameIsCrashThenRestart(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--garbage-on", "textDocument/hover")
	pid := h.Spawn(srv, t.TempDir(), nil)
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if !errors.Is(resp.Err, messages.ErrServerCrashed) || !strings.Contains(resp.Err.Error(), "protocol error") {
		t.Errorf("hover = %v, want ErrServerCrashed by a protocol error", resp.Err)
	}
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	if resp := h.Request(pid, "textDocument/definition", map[string]any{}, 0); resp.Err != nil {
		t.Errorf("definition after restart = %v", resp.Err)
	}
}

func TestRequestTimeoutAndCancel(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t, "--delay", "textDocument/hover=1h", "--hang-on", "textDocument/definition")
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second) // the timeout below is for the request, not the start

	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 200*time.Millisecond)
	if !errors.Is(resp.Err, messages.ErrRequestTimeout) {
		t.Errorf("slow hover = %v, want ErrRequestTimeout", resp.Err)
	}

	raw, _ := json.Marshal(map[string]any{})
	req := &messages.Request{ID: actortest.RequestIDs.Add(1), Method: "textDocument/definition", Params: raw}
	fut := h.Sys.Root.RequestFuture(pid, req, 30*time.Second)
	testenv.Eventually(t, 10*time.Second, "definition reached the fake", func() bool {
		return contains(testenv.Methods(testenv.Records(t, record)), "textDocument/definition")
	})
	h.Sys.Root.Send(pid, &messages.Cancel{ID: req.ID})
	res, err := fut.Result()
	if err != nil || !errors.Is(res.(*messages.Response).Err, messages.ErrCanceled) {
		t.Errorf("cancelled definition = %v, %v; want ErrCanceled", res, err)
	}
	testenv.Eventually(t, 10*time.Second, "two $/cancelRequest at the fake", func() bool {
		return count(testenv.Methods(testenv.Records(t, record)), "$/cancelRequest") == 2
	})
}

func TestContentModifiedRetried(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t, "--content-modified", "textDocument/hover=2")
	pid := h.Spawn(srv, t.TempDir(), func(c *server.Config) { c.RetryBackoff = 10 * time.Millisecond })
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if resp.Err != nil || !strings.Contains(string(resp.Result), "fake hover") {
		t.Fatalf("hover = %s, %v", resp.Result, resp.Err)
	}
	if n := count(testenv.Methods(testenv.Records(t, record)), "textDocument/hover"); n != 3 {
		t.Errorf("hover sent %d times, want 3", n)
	}

	srv2, _ := actortest.FakeServer(t, "--content-modified", "textDocument/hover=9")
	pid2 := h.Spawn(srv2, t.TempDir(), func(c *server.Config) { c.RetryBackoff = 10 * time.Millisecond })
	var rpcErr *messages.RPCError
	if resp := h.Request(pid2, "textDocument/hover", map[string]any{}, 0); !errors.As(resp.Err, &rpcErr) || rpcErr.Code != -32801 {
		t.Errorf("hover after 3 retries = %v, want ContentModified", resp.Err)
	}
}

func TestOverloaded(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--hang-on", "textDocument/hover")
	srv.MaxInFlight = 2
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	raw, _ := json.Marshal(map[string]any{})
	// 2 in flight and 6 waiting for a slot: the bound.
	for i := 0; i < 8; i++ {
		h.Sys.Root.Send(pid, &messages.Request{ID: actortest.RequestIDs.Add(1), Method: "textDocument/hover", Params: raw})
	}
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
	if !errors.Is(resp.Err, messages.ErrOverloaded) || !strings.Contains(resp.Err.Error(), "2 requests in flight and 6 waiting") {
		t.Errorf("ninth request = %v, want ErrOverloaded", resp.Err)
	}
	if st := h.Status(pid); st.InFlight != 8 {
		t.Errorf("calls held = %d, want 8", st.InFlight)
	}
}

func TestGracefulStop(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	h.Open(pid, docURI, "x\n")
	if err := h.Sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	h.AwaitState(messages.StateStopped, 1, 10*time.Second)
	testenv.Eventually(t, 10*time.Second, "shutdown and exit at the fake", func() bool {
		m := testenv.Methods(testenv.Records(t, record))
		return len(m) >= 2 && m[len(m)-2] == "shutdown" && m[len(m)-1] == "exit"
	})
	testenv.NoProcesses(t)
}

func contains(ss []string, s string) bool { return count(ss, s) > 0 }

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func TestUnsupportedRequestAnsweredWithoutAsking(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t, "--without", "implementationProvider")
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	resp := h.Request(pid, "textDocument/implementation", map[string]any{}, 0)
	if !errors.Is(resp.Err, messages.ErrUnsupported) || !strings.Contains(resp.Err.Error(), "implementationProvider") {
		t.Errorf("implementation = %v, want ErrUnsupported naming implementationProvider", resp.Err)
	}
	if resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0); resp.Err != nil {
		t.Errorf("hover = %v", resp.Err)
	}
	if contains(testenv.Methods(testenv.Records(t, record)), "textDocument/implementation") {
		t.Error("the unsupported request was sent to the server")
	}
}

// TestCommandThatIsNoExecutableSaysWhat: a server whose command is a
// directory, or a file that is not executable, is broken with a hint that
// says so, not "install it and make sure it is in PATH", which the user
// had done.
func TestCommandThatIsNoExecutableSaysWhat(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain-lsp")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ command, want string }{
		{dir, "is a directory; the server's command must be its executable, not a directory"},
		{plain, "permission denied; make it executable (chmod +x), or name the server's executable"},
	} {
		h := actortest.New(t)
		srv, _ := actortest.FakeServer(t)
		srv.Command, srv.Args, srv.InstallHint = c.command, nil, "install it: go install example.com/fake@latest"
		pid := h.Spawn(srv, t.TempDir(), nil)
		resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
		if !errors.Is(resp.Err, messages.ErrServerBroken) || !strings.Contains(resp.Err.Error(), c.want) ||
			strings.Contains(resp.Err.Error(), "go install") {
			t.Errorf("request to a server whose command is %s = %v, want ErrServerBroken saying %q", c.command, resp.Err, c.want)
		}
	}
}
