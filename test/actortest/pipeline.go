package actortest

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/actors/router"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// Router starts a router for workspace over reg, its servers observed by
// the probe; edit changes its config.
func (h *Harness) Router(workspace string, reg *config.Registry, edit func(*router.Config)) *actor.PID {
	cfg := router.Config{Workspace: workspace, Registry: reg, Reaper: h.Reaper,
		Observers: []*actor.PID{h.Probe}, Policy: FastPolicy, Logger: Logger()}
	if edit != nil {
		edit(&cfg)
	}
	pid := h.Sys.Root.Spawn(router.NewProps(cfg))
	h.Track(pid)
	return pid
}

// FileRequest asks the router for an LSP request about path.
func (h *Harness) FileRequest(router *actor.PID, path, method string, params any) *messages.FileResponse {
	h.T.Helper()
	raw, _ := json.Marshal(params)
	return h.Ask(router, &messages.FileRequest{ID: RequestIDs.Add(1), Path: path, Method: method, Params: raw}).(*messages.FileResponse)
}

// Sync sends the router one document action for session.
func (h *Harness) Sync(router *actor.PID, session, path string, action messages.SyncAction, text string) *messages.FileSynced {
	h.T.Helper()
	return h.Ask(router, &messages.SyncDocument{Session: session, Path: path, Action: action, Text: text}).(*messages.FileSynced)
}

// Pipeline is a router and a diagnostics actor wired as the runtime wires
// them: the diagnostics actor observes every server.
type Pipeline struct {
	H      *Harness
	Router *actor.PID
	Diag   *actor.PID
}

var editIDs atomic.Uint64

// Pipeline starts a diagnostics actor with cfg and a router for ws.
func (h *Harness) Pipeline(ws string, reg *config.Registry, cfg diagnostics.Config) *Pipeline {
	diag := h.Sys.Root.Spawn(diagnostics.NewProps(cfg))
	h.Track(diag)
	r := h.Router(ws, reg, func(c *router.Config) { c.Observers, c.Diagnostics = append(c.Observers, diag), diag })
	return &Pipeline{H: h, Router: r, Diag: diag}
}

// Edit does what the runtime's Edit does: EditStarted, the sync, then the
// wait for the diagnostics the edit caused.
func (p *Pipeline) Edit(session, path, text string, opts func(*messages.AwaitEdit)) *messages.EditResult {
	return p.await(session, &messages.SyncDocument{Session: session, Path: path, Action: messages.SyncChange, Text: text}, opts)
}

// Fresh does what the runtime's Diagnostics does for one file.
func (p *Pipeline) Fresh(session, path string, opts func(*messages.AwaitEdit)) *messages.EditResult {
	return p.await(session, &messages.SyncDocument{Session: session, Path: path, Action: messages.SyncCurrent, Fresh: true}, opts)
}

func (p *Pipeline) await(session string, sync *messages.SyncDocument, opts func(*messages.AwaitEdit)) *messages.EditResult {
	p.H.T.Helper()
	id := editIDs.Add(1)
	resolved := p.H.Ask(p.Router, &messages.Resolve{Path: sync.Path}).(*messages.Resolved)
	if resolved.Err != nil {
		p.H.T.Fatalf("resolve %s: %v", sync.Path, resolved.Err)
	}
	p.H.Sys.Root.Send(p.Diag, &messages.EditStarted{EditID: id, Session: session, URI: resolved.URI})
	synced := p.H.Ask(p.Router, sync).(*messages.FileSynced)
	if synced.Err != nil {
		p.H.T.Fatalf("sync %s: %v", sync.Path, synced.Err)
	}
	req := &messages.AwaitEdit{EditID: id, Session: session, URI: synced.URI, Servers: synced.Servers}
	if opts != nil {
		opts(req)
	}
	res, err := p.H.Sys.Root.RequestFuture(p.Diag, req, 2*time.Minute).Result()
	if err != nil {
		p.H.T.Fatalf("AwaitEdit: %v", err)
	}
	return res.(*messages.EditResult)
}

// Subscriber collects a session's passive batches; it acks only when told.
type Subscriber struct {
	pid     *actor.PID
	mu      sync.Mutex
	batches []*messages.DiagnosticBatch
	signal  chan struct{}
}

// Subscribe starts a subscriber for session.
func (p *Pipeline) Subscribe(session string) *Subscriber {
	s := &Subscriber{signal: make(chan struct{}, 1)}
	ready := make(chan struct{})
	s.pid = p.H.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(p.Diag, &messages.Subscribe{Session: session})
			close(ready)
		case *messages.DiagnosticBatch:
			s.mu.Lock()
			s.batches = append(s.batches, m)
			s.mu.Unlock()
			select {
			case s.signal <- struct{}{}:
			default:
			}
		}
	}))
	<-ready
	p.H.Track(s.pid)
	return s
}

// Next waits for the n-th batch (1-based).
func (s *Subscriber) Next(t *testing.T, n int) *messages.DiagnosticBatch {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		if len(s.batches) >= n {
			b := s.batches[n-1]
			s.mu.Unlock()
			return b
		}
		s.mu.Unlock()
		select {
		case <-s.signal:
		case <-deadline:
			t.Fatalf("batch %d never came", n)
		}
	}
}

// Count is the number of batches received.
func (s *Subscriber) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.batches)
}

// MessagesOf lists a report's diagnostic messages.
func MessagesOf(f messages.FileReport) []string {
	var out []string
	for _, d := range f.Diagnostics {
		out = append(out, d.Message)
	}
	return out
}
