package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

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

// recordURI is the textDocument.uri of a recorded message's params, "" when
// it has none.
func recordURI(r testenv.Record) string {
	var p struct {
		TextDocument struct{ URI string } `json:"textDocument"`
	}
	_ = json.Unmarshal(r.Params, &p)
	return p.TextDocument.URI
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

// runningPulledFake starts a fake that is pulled and never pushes, with
// maxInFlight calls in flight and the answers of one method delayed
// (METHOD=DUR), and waits until it runs.
func runningPulledFake(t *testing.T, maxInFlight int, delay string) (*actortest.Harness, *actor.PID) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--pull", "--no-push", "--delay", delay)
	srv.MaxInFlight = maxInFlight
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	return h, pid
}

// TestEveryOpenIsPulledBeyondTheQueue: more documents opened at once than
// the call queue holds (4 in flight, 12 waiting) are each pulled, their
// pulls waiting their turn in the actor rather than refused as overloaded
// (251 TypeScript files opened at once had 560 pulls refused, and files
// whose round failed waited for a pull that never came), and an agent's
// request meanwhile finds room in the queue.
func TestEveryOpenIsPulledBeyondTheQueue(t *testing.T) {
	h, pid := runningPulledFake(t, 4, "textDocument/diagnostic=20ms")
	const n = 60
	for i := range n {
		h.Open(pid, docURIn(i), "x\n")
	}
	if resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0); resp.Err != nil {
		t.Errorf("a request while the pulls wait: %v", resp.Err)
	}
	for i := range n {
		h.AwaitDiagnostics(docURIn(i), func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
	}
}

// TestATouchOfAPulledDocumentIsAPull: on a running server that is pulled,
// a touch sends no new version: the document is pulled again, and the
// answer says at which view of the server, so that only that pull or a
// later one describes it. The first such pull after a real change
// re-pulls the other open documents too (what the change did to them), a
// second one with nothing sent since pulls its document alone, and one
// with nothing sent since the document's own version is no pull at all.
func TestATouchOfAPulledDocumentIsAPull(t *testing.T) {
	h := actortest.New(t)
	srv, record := actortest.FakeServer(t, "--pull", "--no-push", "--inter-file")
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	uris := []string{docURIn(0), docURIn(1), docURIn(2)}
	for _, u := range uris {
		h.Open(pid, u, "x\n")
	}
	count := func(method string) map[string]int {
		out := map[string]int{}
		for _, r := range testenv.Records(t, record) {
			if r.Method == method {
				out[recordURI(r)]++
			}
		}
		return out
	}
	settled := func(what string) map[string]int {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, what, func() bool { return h.Status(pid).InFlight == 0 })
		return count("textDocument/diagnostic")
	}
	settled("the pulls of the opens")
	h.Change(pid, uris[2], "y\n") // a real change: the next re-pull accounts for it
	afterChange := settled("the pulls of the change")
	for _, u := range uris[:2] {
		s := h.Ask(pid, &messages.TouchDocument{URI: u}).(*messages.DocumentSynced)
		if s.Changed || s.Version != 1 || s.PullView == 0 {
			t.Fatalf("touch of %s = %+v, want version 1 pulled again at a view", u, s)
		}
		h.AwaitDiagnostics(u, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.View >= s.PullView })
	}
	if s := h.Ask(pid, &messages.TouchDocument{URI: uris[2]}).(*messages.DocumentSynced); s.Changed || s.PullView != 0 {
		t.Errorf("touch of the document changed last = %+v, want nothing to do", s)
	}
	after := settled("the pulls of the touches")
	want := map[string]int{uris[0]: 1, uris[1]: 2, uris[2]: 1} // a, with b and c; then b alone
	for _, u := range uris {
		if got := after[u] - afterChange[u]; got != want[u] {
			t.Errorf("%s pulled %d times by the touches, want %d", u, got, want[u])
		}
	}
	if changes := count("textDocument/didChange"); changes[uris[0]]+changes[uris[1]] != 0 {
		t.Errorf("didChange sent for touches of a pulled server's documents: %v", changes)
	}
}

// TestAPullWaitsForRoomAgentsTook: with the call queue full of agents'
// requests (2 in flight, 6 waiting), an open's pull waits in the actor,
// and goes once an agent's answer makes room: the file is pulled.
func TestAPullWaitsForRoomAgentsTook(t *testing.T) {
	h, pid := runningPulledFake(t, 2, "textDocument/hover=300ms")
	raw, _ := json.Marshal(map[string]any{})
	for range 8 {
		h.Sys.Root.Send(pid, &messages.Request{ID: actortest.RequestIDs.Add(1), Method: "textDocument/hover", Params: raw})
	}
	h.Open(pid, docURI, "x\n")
	h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
}
