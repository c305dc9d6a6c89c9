// Package actortest is the test support of the actor packages: a Harness
// (an actor system with a probe actor observing the server actors it
// spawns, leak checks at cleanup), the router and diagnostics pipeline
// wired as the runtime wires them, and the fake language server as a
// config.Server. Only tests import it.
package actortest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// harness is an actor system with a probe actor observing the server
// actors it spawns. At cleanup it stops them, joins the reaper, and checks
// that the registry is back to its baseline and no process is left.
type Harness struct {
	T      *testing.T
	Sys    *actor.ActorSystem
	Reaper *lifecycle.Reaper
	Probe  *actor.PID // observes every server spawned with Spawn or Router
	base   int

	mu     sync.Mutex
	events []any
	signal chan struct{}
}

// RequestIDs numbers the requests tests send.
var RequestIDs atomic.Uint64

// New returns a harness whose cleanup stops every actor it tracks, joins
// the reaper, and checks the actor registry and child processes.
func New(t *testing.T) *Harness {
	h := &Harness{T: t, Sys: lifecycle.NewSystem(nil), Reaper: &lifecycle.Reaper{}, signal: make(chan struct{}, 1)}
	h.base = testenv.Actors(h.Sys)
	h.Probe = h.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *messages.StateChanged, *messages.PublishedDiagnostics, *messages.Progress, *messages.DocumentSent:
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

func (h *Harness) close() {
	for _, pid := range h.spawned() {
		_ = h.Sys.Root.StopFuture(pid).Wait()
	}
	_ = h.Sys.Root.StopFuture(h.Probe).Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if !h.Reaper.Wait(ctx) {
		h.T.Error("reaper goroutines did not end")
	}
	testenv.Eventually(h.T, 30*time.Second, "actor registry back to its baseline", func() bool {
		return testenv.Actors(h.Sys) == h.base
	})
	h.Sys.Shutdown()
	testenv.NoProcesses(h.T)
}

// Track makes the cleanup stop pid.
func (h *Harness) Track(pid *actor.PID) {
	h.mu.Lock()
	h.events = append(h.events, pid)
	h.mu.Unlock()
}

func (h *Harness) spawned() []*actor.PID {
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

// FakeServer is a config for the fake language server with flags, and the
// path of its record file.
func FakeServer(t *testing.T, flags ...string) (*config.Server, string) {
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, args, env := testenv.FakeServer(t, append([]string{"--record", record}, flags...)...)
	return &config.Server{
		ID: "fake", Command: cmd, Args: args, Env: env,
		StartupTimeout: config.Duration(20 * time.Second),
		RequestTimeout: config.Duration(10 * time.Second),
		Settings:       map[string]any{"fake": map[string]any{"answer": 42.0}},
	}, record
}

// FastPolicy restarts quickly and without jitter.
var FastPolicy = supervisor.Policy{BackoffBase: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond, Jitter: -1}

// Spawn starts a server actor for srv at root, observed by the probe.
func (h *Harness) Spawn(srv *config.Server, root string, edit func(*server.Config)) *actor.PID {
	cfg := server.Config{
		Server: srv, Root: root, Observers: []*actor.PID{h.Probe},
		Policy: FastPolicy, Reaper: h.Reaper,
	}
	if edit != nil {
		edit(&cfg)
	}
	pid := h.Sys.Root.Spawn(server.NewProps(cfg))
	h.Track(pid)
	return pid
}

// Await waits for an event matching pred and consumes it, so that a later
// await cannot match the same event again.
func (h *Harness) Await(what string, timeout time.Duration, pred func(any) bool) any {
	h.T.Helper()
	deadline := time.After(timeout)
	for {
		if e, ok := h.take(pred); ok {
			return e
		}
		select {
		case <-h.signal:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			h.T.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

func (h *Harness) take(pred func(any) bool) (any, bool) {
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

// AwaitState waits for a transition to state of the given incarnation (0: any).
func (h *Harness) AwaitState(state messages.ServerState, inc int, timeout time.Duration) *messages.StateChanged {
	h.T.Helper()
	return h.Await("state "+state.String(), timeout, func(e any) bool {
		s, ok := e.(*messages.StateChanged)
		return ok && s.State == state && (inc == 0 || s.Incarnation == inc)
	}).(*messages.StateChanged)
}

func (h *Harness) AwaitDiagnostics(uri string, pred func(*messages.PublishedDiagnostics) bool) *messages.PublishedDiagnostics {
	h.T.Helper()
	return h.Await("diagnostics for "+uri, awaitBound, func(e any) bool {
		d, ok := e.(*messages.PublishedDiagnostics)
		return ok && d.URI == uri && pred(d)
	}).(*messages.PublishedDiagnostics)
}

// Bounds of a harness's waits for an answer: longer than a real server
// may take to answer (Builtin's startup timeout, 90 s, and request
// timeout, 60 s), so that the actor's own answer, or its own timeout, is
// what a test sees. A 30 s bound cut off a definition that a cold real
// server (TestRouterRealServersInOneWorkspace) took longer to answer, on a
// machine loaded seven times over.
const (
	askBound   = 3 * time.Minute
	awaitBound = 90 * time.Second
)

func (h *Harness) Ask(pid *actor.PID, msg any) any {
	h.T.Helper()
	res, err := h.Sys.Root.RequestFuture(pid, msg, askBound).Result()
	if err != nil {
		h.T.Fatalf("ask %T: %v", msg, err)
	}
	return res
}

func (h *Harness) Request(pid *actor.PID, method string, params any, timeout time.Duration) *messages.Response {
	h.T.Helper()
	raw, _ := json.Marshal(params)
	req := &messages.Request{ID: RequestIDs.Add(1), Method: method, Params: raw, Timeout: timeout}
	return h.Ask(pid, req).(*messages.Response)
}

func (h *Harness) Status(pid *actor.PID) *messages.ServerStatus {
	h.T.Helper()
	return h.Ask(pid, &messages.GetServerStatus{}).(*messages.ServerStatus)
}

func (h *Harness) Open(pid *actor.PID, uri, text string) *messages.DocumentSynced {
	h.T.Helper()
	return h.Ask(pid, &messages.OpenDocument{URI: uri, LanguageID: "fake", Text: text}).(*messages.DocumentSynced)
}

func (h *Harness) Change(pid *actor.PID, uri, text string) *messages.DocumentSynced {
	h.T.Helper()
	return h.Ask(pid, &messages.ChangeDocument{URI: uri, Text: text}).(*messages.DocumentSynced)
}

// documentText asks the fake for its copy of a document.
func (h *Harness) DocumentText(pid *actor.PID, uri string) (text string, version int32) {
	h.T.Helper()
	resp := h.Request(pid, "fake/documentText", map[string]string{"uri": uri}, 0)
	if resp.Err != nil {
		h.T.Fatalf("fake/documentText: %v", resp.Err)
	}
	var r struct {
		Text    string `json:"text"`
		Version int32  `json:"version"`
	}
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		h.T.Fatal(err)
	}
	return r.Text, r.Version
}
