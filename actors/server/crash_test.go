package server_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
)

// TestRequestCutOffByACrashIsSentAgain: a hover in flight when the server
// is killed goes to the restarted server, its document re-opened first,
// and is answered: navigation is read-only. Before, it failed with the
// crash while the next call, a moment later, got its answer. A request
// the server crashes on every time is answered with the second crash.
func TestRequestCutOffByACrashIsSentAgain(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--delay", "textDocument/hover=1s", "--garbage-on", "textDocument/definition")
	pid := h.Spawn(srv, t.TempDir(), func(c *server.Config) {
		c.Policy.BackoffBase, c.Policy.BackoffMax = 100*time.Millisecond, time.Second
	})
	h.Open(pid, docURI, "one\n")
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	first := h.Status(pid)
	if first.PID <= 0 {
		t.Fatalf("no server process: pid %d", first.PID) // never kill(0): that is this process group
	}
	params, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": docURI}, "position": map[string]int{"line": 0, "character": 1}})
	answer := make(chan any, 1)
	// Ends with the request's answer or its 30 s future; read below.
	go func() {
		res, err := h.Sys.Root.RequestFuture(pid, &messages.Request{ID: actortest.RequestIDs.Add(1),
			Method: "textDocument/hover", Params: params, Timeout: 20 * time.Second}, 30*time.Second).Result()
		if err != nil {
			answer <- err
			return
		}
		answer <- res
	}()
	for deadline := time.Now().Add(10 * time.Second); h.Status(pid).Sent == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hover was never sent")
		}
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	switch res := (<-answer).(type) {
	case *messages.Response:
		if res.Err != nil || !strings.Contains(string(res.Result), "fake hover") {
			t.Errorf("hover cut off by the crash: %s, %v; want the restarted server's answer", res.Result, res.Err)
		}
	default:
		t.Fatalf("hover: %v", res)
	}
	if st := h.Status(pid); st.Restarts != 1 || st.PID == first.PID || st.OpenDocuments[docURI] != 1 {
		t.Errorf("status = restarts %d, pid %d (was %d), documents %v; want one restart, the document re-opened",
			st.Restarts, st.PID, first.PID, st.OpenDocuments)
	}

	resp := h.Request(pid, "textDocument/definition", json.RawMessage(params), 20*time.Second)
	if !errors.Is(resp.Err, messages.ErrServerCrashed) {
		t.Errorf("definition the server crashes on: %v, want ErrServerCrashed", resp.Err)
	}
	// It was sent twice: two more crashes, the fourth incarnation runs.
	h.AwaitState(messages.StateRunning, 4, 30*time.Second)
	if st := h.Status(pid); st.Restarts != 3 {
		t.Errorf("restarts %d after the definition, want 3", st.Restarts)
	}
}

// TestServerErrorNamesServerAndMethod: a server's JSON-RPC error answer
// names the server and the method ("method not found" alone, among
// several servers' answers, said neither), and stays an RPCError.
func TestServerErrorNamesServerAndMethod(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), nil)
	resp := h.Request(pid, "textDocument/notThere", map[string]any{}, 0)
	var rpcErr *messages.RPCError
	if !errors.As(resp.Err, &rpcErr) || rpcErr.Code != -32601 || !strings.HasPrefix(resp.Err.Error(), "fake: textDocument/notThere: ") {
		t.Errorf("error = %v, want an RPCError -32601 naming fake and textDocument/notThere", resp.Err)
	}
}

// TestHeldRequestTimesOutAtItsDeadline: a request held over a crash whose
// restart comes after its deadline is answered at the deadline, with a
// timeout, not when the server is back.
func TestHeldRequestTimesOutAtItsDeadline(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--delay", "textDocument/hover=5s")
	pid := h.Spawn(srv, t.TempDir(), func(c *server.Config) {
		c.Policy.BackoffBase, c.Policy.BackoffMax = 20*time.Second, 20*time.Second
	})
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	first := h.Status(pid)
	if first.PID <= 0 {
		t.Fatalf("no server process: pid %d", first.PID) // never kill(0)
	}
	answer := make(chan *messages.Response, 1)
	// Ends with the request's answer or its 30 s future; read below.
	go func() {
		res, _ := h.Sys.Root.RequestFuture(pid, &messages.Request{ID: actortest.RequestIDs.Add(1),
			Method: "textDocument/hover", Params: json.RawMessage(`{}`), Timeout: 2 * time.Second}, 30*time.Second).Result()
		r, _ := res.(*messages.Response)
		answer <- r
	}()
	for deadline := time.Now().Add(10 * time.Second); h.Status(pid).Sent == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hover was never sent")
		}
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-answer
	if r == nil || !errors.Is(r.Err, messages.ErrRequestTimeout) {
		t.Fatalf("held hover: %+v, want a timeout", r)
	}
	if st := h.Status(pid); st.Incarnation != 1 || st.PID != 0 {
		t.Errorf("answered with incarnation %d running (pid %d), want before the restart", st.Incarnation, st.PID)
	}
}

// TestTimeoutAfterACrashSaysWhy: a server that dies at start, whose next
// try comes after a request's deadline, answered "the server was not
// running in time" and nothing of why (with a startupTimeout shorter than
// the restarts take to make it broken). The timeout carries the last
// failure: its exit status and last stderr lines.
func TestTimeoutAfterACrashSaysWhy(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--exit-on", "initialize", "--stderr", "fake: no toolchain")
	pid := h.Spawn(srv, t.TempDir(), func(c *server.Config) {
		c.Policy.BackoffBase, c.Policy.BackoffMax = 20*time.Second, 20*time.Second
	})
	h.AwaitState(messages.StateError, 1, 30*time.Second)
	resp := h.Request(pid, "textDocument/hover", map[string]any{}, 500*time.Millisecond)
	var se *messages.ServerError
	if !errors.As(resp.Err, &se) || !errors.Is(resp.Err, messages.ErrRequestTimeout) && !errors.Is(resp.Err, messages.ErrStartupTimeout) {
		t.Fatalf("request while the server waits to restart = %v, want a timeout", resp.Err)
	}
	if !strings.Contains(se.Cause, "its last failure: ") || !slices.Contains(se.Stderr, "fake: no toolchain") {
		t.Errorf("timeout = %v (stderr %q), want the last failure and its stderr", resp.Err, se.Stderr)
	}
}
