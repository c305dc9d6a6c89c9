package actors_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// harness is an actor system with a probe actor observing the server
// actors it spawns. At cleanup it stops them, joins the reaper, and checks
// that the registry is back to its baseline and no process is left.
type harness struct {
	t      *testing.T
	sys    *actor.ActorSystem
	reaper *actors.Reaper
	probe  *actor.PID
	base   int

	mu     sync.Mutex
	events []any
	signal chan struct{}
}

var requestIDs atomic.Uint64

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, sys: actors.NewSystem(nil), reaper: &actors.Reaper{}, signal: make(chan struct{}, 1)}
	h.base = testenv.Actors(h.sys)
	h.probe = h.sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *messages.StateChanged, *messages.PublishedDiagnostics, *messages.Progress:
			h.mu.Lock()
			h.events = append(h.events, m)
			h.mu.Unlock()
			select {
			case h.signal <- struct{}{}:
			default:
			}
		}
	}))
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	for _, pid := range h.spawned() {
		_ = h.sys.Root.StopFuture(pid).Wait()
	}
	_ = h.sys.Root.StopFuture(h.probe).Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !h.reaper.Wait(ctx) {
		h.t.Error("reaper goroutines did not end")
	}
	testenv.Eventually(h.t, 5*time.Second, "actor registry back to its baseline", func() bool {
		return testenv.Actors(h.sys) == h.base
	})
	h.sys.Shutdown()
	testenv.NoProcesses(h.t)
}

func (h *harness) spawned() []*actor.PID {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*actor.PID
	for _, e := range h.events {
		if p, ok := e.(*actor.PID); ok {
			out = append(out, p)
		}
	}
	return out
}

// fakeServer is a config for the fake language server with flags, and the
// path of its record file.
func fakeServer(t *testing.T, flags ...string) (*config.Server, string) {
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, args, env := testenv.FakeServer(t, append([]string{"--record", record}, flags...)...)
	return &config.Server{
		ID: "fake", Command: cmd, Args: args, Env: env,
		StartupTimeout: config.Duration(20 * time.Second),
		RequestTimeout: config.Duration(10 * time.Second),
		Settings:       map[string]any{"fake": map[string]any{"answer": 42.0}},
	}, record
}

// fastPolicy restarts quickly and without jitter.
var fastPolicy = supervisor.Policy{BackoffBase: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond, Jitter: -1}

func (h *harness) spawn(srv *config.Server, root string, edit func(*actors.ServerConfig)) *actor.PID {
	cfg := actors.ServerConfig{
		Server: srv, Root: root, Observers: []*actor.PID{h.probe},
		Policy: fastPolicy, Reaper: h.reaper,
	}
	if edit != nil {
		edit(&cfg)
	}
	pid := h.sys.Root.Spawn(actors.NewServerProps(cfg))
	h.mu.Lock()
	h.events = append(h.events, pid)
	h.mu.Unlock()
	return pid
}

// await waits for an event matching pred and consumes it, so that a later
// await cannot match the same event again.
func (h *harness) await(what string, timeout time.Duration, pred func(any) bool) any {
	h.t.Helper()
	deadline := time.After(timeout)
	for {
		if e, ok := h.take(pred); ok {
			return e
		}
		select {
		case <-h.signal:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

func (h *harness) take(pred func(any) bool) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, e := range h.events {
		if _, isPID := e.(*actor.PID); !isPID && pred(e) {
			h.events = append(h.events[:i], h.events[i+1:]...)
			return e, true
		}
	}
	return nil, false
}

// awaitState waits for a transition to state of the given incarnation (0: any).
func (h *harness) awaitState(state messages.ServerState, inc int, timeout time.Duration) *messages.StateChanged {
	h.t.Helper()
	return h.await("state "+state.String(), timeout, func(e any) bool {
		s, ok := e.(*messages.StateChanged)
		return ok && s.State == state && (inc == 0 || s.Incarnation == inc)
	}).(*messages.StateChanged)
}

func (h *harness) awaitDiagnostics(uri string, pred func(*messages.PublishedDiagnostics) bool) *messages.PublishedDiagnostics {
	h.t.Helper()
	return h.await("diagnostics for "+uri, 30*time.Second, func(e any) bool {
		d, ok := e.(*messages.PublishedDiagnostics)
		return ok && d.URI == uri && pred(d)
	}).(*messages.PublishedDiagnostics)
}

func (h *harness) ask(pid *actor.PID, msg any) any {
	h.t.Helper()
	res, err := h.sys.Root.RequestFuture(pid, msg, 30*time.Second).Result()
	if err != nil {
		h.t.Fatalf("ask %T: %v", msg, err)
	}
	return res
}

func (h *harness) request(pid *actor.PID, method string, params any, timeout time.Duration) *messages.Response {
	h.t.Helper()
	raw, _ := json.Marshal(params)
	req := &messages.Request{ID: requestIDs.Add(1), Method: method, Params: raw, Timeout: timeout}
	return h.ask(pid, req).(*messages.Response)
}

func (h *harness) status(pid *actor.PID) *messages.ServerStatus {
	h.t.Helper()
	return h.ask(pid, &messages.GetServerStatus{}).(*messages.ServerStatus)
}

func (h *harness) open(pid *actor.PID, uri, text string) *messages.DocumentSynced {
	h.t.Helper()
	return h.ask(pid, &messages.OpenDocument{URI: uri, LanguageID: "fake", Text: text}).(*messages.DocumentSynced)
}

func (h *harness) change(pid *actor.PID, uri, text string) *messages.DocumentSynced {
	h.t.Helper()
	return h.ask(pid, &messages.ChangeDocument{URI: uri, Text: text}).(*messages.DocumentSynced)
}

// documentText asks the fake for its copy of a document.
func (h *harness) documentText(pid *actor.PID, uri string) (text string, version int32) {
	h.t.Helper()
	resp := h.request(pid, "fake/documentText", map[string]string{"uri": uri}, 0)
	if resp.Err != nil {
		h.t.Fatalf("fake/documentText: %v", resp.Err)
	}
	var r struct {
		Text    string `json:"text"`
		Version int32  `json:"version"`
	}
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		h.t.Fatal(err)
	}
	return r.Text, r.Version
}
