package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestIdleTimerIsOne: requests that end while the server is idle replace
// its idle check; they do not pile up timers (200 requests once left 201).
func TestIdleTimerIsOne(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	for range 200 {
		if resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0); resp.Err != nil {
			t.Fatal(resp.Err)
		}
	}
	if st := h.Status(pid); st.Timers > 2 {
		t.Errorf("%d timers pending after 200 requests, want at most 2 (the idle check, and a retry)", st.Timers)
	}
}

// TestPullsStayUnderTheInFlightBound: pull-diagnostics requests count
// against the in-flight bound like any request, and one change re-pulls at
// most 16 other open documents.
func TestPullsStayUnderTheInFlightBound(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t, "--pull", "--no-push", "--inter-file", "--delay", "textDocument/diagnostic=50ms")
	srv.MaxInFlight = 4
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	for i := range 40 {
		h.Open(pid, docURIn(i), "x\n")
	}
	over := 0
	testenv.Eventually(t, 60*time.Second, "the pulls of 40 opens done", func() bool {
		st := h.Status(pid)
		if st.Sent > 4 {
			over++
		}
		return st.InFlight == 0
	})
	before := countMethod(testenv.Records(t, record), "textDocument/diagnostic")
	h.Change(pid, docURIn(0), "y\n")
	testenv.Eventually(t, 60*time.Second, "the pulls of one change done", func() bool {
		st := h.Status(pid)
		if st.Sent > 4 {
			over++
		}
		return st.InFlight == 0
	})
	if over > 0 {
		t.Errorf("more than 4 calls in flight %d times", over)
	}
	var stats struct {
		MaxPending int `json:"maxPending"`
	}
	resp := h.Request(pid, "fake/stats", map[string]any{}, 0)
	if err := json.Unmarshal(resp.Result, &stats); err != nil || stats.MaxPending > 4 {
		t.Errorf("the server had %d requests at once (%v), want at most the bound of 4", stats.MaxPending, err)
	}
	if n := countMethod(testenv.Records(t, record), "textDocument/diagnostic") - before; n > 17 {
		t.Errorf("one change made %d pulls, want at most 1 + 16 others", n)
	}
}

func docURIn(i int) string {
	return "file:///work/d" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".fake"
}

func countMethod(rs []testenv.Record, method string) int {
	n := 0
	for _, r := range rs {
		if r.Method == method {
			n++
		}
	}
	return n
}
