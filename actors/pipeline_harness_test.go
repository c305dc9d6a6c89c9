package actors_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// pipeline is a router and a diagnostics actor wired as the runtime wires
// them: the diagnostics actor observes every server.
type pipeline struct {
	h      *harness
	router *actor.PID
	diag   *actor.PID
}

var editIDs atomic.Uint64

func (h *harness) pipeline(ws string, reg *config.Registry, cfg actors.DiagnosticsConfig) *pipeline {
	diag := h.sys.Root.Spawn(actors.NewDiagnosticsProps(cfg))
	h.mu.Lock()
	h.events = append(h.events, diag)
	h.mu.Unlock()
	router := h.router(ws, reg, func(c *actors.RouterConfig) { c.Observers = append(c.Observers, diag) })
	return &pipeline{h: h, router: router, diag: diag}
}

// edit does what the runtime's Edit does: EditStarted, the sync, then the
// wait for the diagnostics the edit caused.
func (p *pipeline) edit(session, path, text string, opts func(*messages.AwaitEdit)) *messages.EditResult {
	p.h.t.Helper()
	id := editIDs.Add(1)
	resolved := p.h.ask(p.router, &messages.Resolve{Path: path}).(*messages.Resolved)
	if resolved.Err != nil {
		p.h.t.Fatalf("resolve %s: %v", path, resolved.Err)
	}
	p.h.sys.Root.Send(p.diag, &messages.EditStarted{EditID: id, Session: session, URI: resolved.URI})
	synced := p.h.sync(p.router, session, path, messages.SyncChange, text)
	if synced.Err != nil {
		p.h.t.Fatalf("sync %s: %v", path, synced.Err)
	}
	req := &messages.AwaitEdit{EditID: id, Session: session, URI: synced.URI, Servers: synced.Servers}
	if opts != nil {
		opts(req)
	}
	res, err := p.h.sys.Root.RequestFuture(p.diag, req, 2*time.Minute).Result()
	if err != nil {
		p.h.t.Fatalf("AwaitEdit: %v", err)
	}
	return res.(*messages.EditResult)
}

// subscriber collects a session's passive batches; it acks only when told.
type subscriber struct {
	pid     *actor.PID
	mu      sync.Mutex
	batches []*messages.DiagnosticBatch
	signal  chan struct{}
}

func (p *pipeline) subscribe(session string) *subscriber {
	s := &subscriber{signal: make(chan struct{}, 1)}
	ready := make(chan struct{})
	s.pid = p.h.sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(p.diag, &messages.Subscribe{Session: session})
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
	p.h.mu.Lock()
	p.h.events = append(p.h.events, s.pid)
	p.h.mu.Unlock()
	return s
}

// next waits for the n-th batch (1-based).
func (s *subscriber) next(t *testing.T, n int) *messages.DiagnosticBatch {
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

func (s *subscriber) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.batches)
}

func messagesOf(f messages.FileReport) []string {
	var out []string
	for _, d := range f.Diagnostics {
		out = append(out, d.Message)
	}
	return out
}
