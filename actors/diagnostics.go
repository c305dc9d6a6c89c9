package actors

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

// Defaults of the diagnostics actor (DESIGN.md section 4).
const (
	DefaultSettle        = 150 * time.Millisecond
	DefaultEditTimeout   = 3 * time.Second
	DefaultBatchDelay    = 100 * time.Millisecond
	DefaultMaxStored     = 1000 // diagnostics kept per (server, document)
	maxPendingEdits      = 10000
	pendingEditLifetime  = time.Minute
	defaultSessionsBound = 10000
)

// DiagnosticsConfig configures the diagnostics actor. Zero values are the
// defaults.
type DiagnosticsConfig struct {
	// MinSeverity of passive batches (zero: errors only).
	MinSeverity messages.Severity
	// BatchDelay gathers updates before a passive batch is built.
	BatchDelay time.Duration
	// MaxStored bounds the diagnostics kept per (server, document); the
	// rest is counted.
	MaxStored int
	// MaxFiles is the per-session delivered-set LRU size (default 500).
	MaxFiles int
	Logger   *slog.Logger
}

// NewDiagnosticsProps returns the props of the diagnostics actor. It keeps
// the latest diagnostics per (server, document) with the version they
// describe, releases edits that wait once every server produced
// diagnostics for the edited version (plus a settle window after pushes),
// reports what an edit caused (delta against a baseline, cascade into
// other files, capped), and sends each subscribed session batches of what
// is new to it, deduplicated across turns.
func NewDiagnosticsProps(cfg DiagnosticsConfig) *actor.Props {
	if cfg.MinSeverity == 0 {
		cfg.MinSeverity = messages.SeverityError
	}
	if cfg.BatchDelay <= 0 {
		cfg.BatchDelay = DefaultBatchDelay
	}
	if cfg.MaxStored <= 0 {
		cfg.MaxStored = DefaultMaxStored
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = dedup.MaxFiles
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return actor.PropsFromProducer(func() actor.Actor { return &diagnosticsActor{cfg: cfg} })
}

// diagKey names the diagnostics of one document from one server.
type diagKey struct {
	server messages.ServerKey
	uri    string
}

// published is one set of diagnostics as received; never changed after.
type published struct {
	version    int32
	hasVersion bool
	at         time.Time
	diags      []messages.Diagnostic
	dropped    int // beyond MaxStored
}

// diagEntry is the latest push and the latest pull result of a document.
type diagEntry struct {
	push, pull *published
}

// current is the entry's diagnostics: the newer of push and pull, both
// (deduplicated) when they describe the same version.
func (e diagEntry) current() []messages.Diagnostic {
	switch {
	case e.pull == nil && e.push == nil:
		return nil
	case e.pull == nil:
		return e.push.diags
	case e.push == nil:
		return e.pull.diags
	case e.push.hasVersion && e.push.version > e.pull.version:
		return e.push.diags
	case e.push.hasVersion && e.push.version < e.pull.version:
		return e.pull.diags
	}
	return union(e.pull.diags, e.push.diags)
}

// union returns a followed by the diagnostics of b not in a.
func union(a, b []messages.Diagnostic) []messages.Diagnostic {
	if len(b) == 0 {
		return a
	}
	seen := make(map[dedup.Key]bool, len(a))
	out := append([]messages.Diagnostic(nil), a...)
	for _, d := range a {
		seen[dedup.KeyOf(d)] = true
	}
	for _, d := range b {
		if k := dedup.KeyOf(d); !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// serverView is what the actor knows of a server's state.
type serverView struct {
	state    messages.ServerState
	broken   bool
	indexing bool
	err      error
}

type diagnosticsActor struct {
	cfg    DiagnosticsConfig
	timers *timers

	store    map[diagKey]*stored // see diagnostics_store.go
	seq      uint64              // writes so far
	log      []change            // recent writes
	editedAt map[string]uint64   // document -> seq when an edit of it last started
	byURI    map[string]map[messages.ServerKey]bool
	servers  map[messages.ServerKey]*serverView
	versions map[diagKey]int32 // latest version an edit synced, for staleness
	edits    map[uint64]*edit
	sessions map[string]*session
	flushing bool // a batch flush is scheduled
}

// Receive dispatches one message; it never blocks.
func (a *diagnosticsActor) Receive(ctx actor.Context) { a.handle(ctx, ctx.Message()) }

func (a *diagnosticsActor) handle(ctx actor.Context, msg any) {
	switch m := msg.(type) {
	case *actor.Started:
		a.onStarted(ctx)
	case *actor.Stopping, *actor.Restarting:
		a.timers.stopAll()
	case *timerFired:
		a.handle(ctx, a.timers.fired(m))
	case *messages.PublishedDiagnostics:
		a.onPublished(ctx, m)
	case *messages.StateChanged:
		a.onState(ctx, m)
	case *messages.Progress:
		a.server(messages.ServerKey{ServerID: m.ServerID, Root: m.Root}).indexing = m.Active
	case *messages.EditStarted:
		a.onEditStarted(m)
	case *messages.AwaitEdit:
		a.onAwaitEdit(ctx, m)
	case *editTimeout:
		a.onEditTimeout(ctx, m)
	case *editSettled:
		a.onEditSettled(ctx, m)
	case *editExpired:
		a.onEditExpired(m)
	case *messages.EditAborted:
		a.onEditAborted(m)
	case *messages.Subscribe:
		a.onSubscribe(ctx, m)
	case *messages.Unsubscribe:
		delete(a.sessions, m.Session)
	case *messages.BatchAck:
		a.onAck(m)
	case *flushBatches:
		a.onFlush(ctx)
	case *messages.GetDiagnostics:
		ctx.Respond(a.snapshot(m))
	}
}

func (a *diagnosticsActor) onStarted(ctx actor.Context) {
	a.timers = newTimers(ctx)
	a.store = make(map[diagKey]*stored)
	a.editedAt = make(map[string]uint64)
	a.byURI = make(map[string]map[messages.ServerKey]bool)
	a.servers = make(map[messages.ServerKey]*serverView)
	a.versions = make(map[diagKey]int32)
	a.edits = make(map[uint64]*edit)
	a.sessions = make(map[string]*session)
}

func (a *diagnosticsActor) server(k messages.ServerKey) *serverView {
	v, ok := a.servers[k]
	if !ok {
		v = &serverView{state: messages.StateStarting}
		a.servers[k] = v
	}
	return v
}

func (a *diagnosticsActor) onState(ctx actor.Context, m *messages.StateChanged) {
	v := a.server(messages.ServerKey{ServerID: m.ServerID, Root: m.Root})
	v.state, v.broken, v.err = m.State, m.Broken, m.Err
	if m.State != messages.StateRunning {
		v.indexing = false
	}
	if m.Broken {
		// Edits waiting on a broken server will get nothing more from it.
		for _, e := range a.edits {
			a.check(ctx, e)
		}
	}
}

// onPublished stores a push or pull result (sorted, capped) and lets the
// edits and sessions interested in the document know.
func (a *diagnosticsActor) onPublished(ctx actor.Context, m *messages.PublishedDiagnostics) {
	k := diagKey{server: messages.ServerKey{ServerID: m.ServerID, Root: m.Root}, uri: m.URI}
	a.cfg.Logger.Debug("diagnostics received", "server", m.ServerID, "uri", m.URI, "version", m.Version,
		"hasVersion", m.HasVersion, "pulled", m.Pulled, "count", len(m.Diagnostics), "incarnation", m.Incarnation)
	ds := append([]messages.Diagnostic(nil), m.Diagnostics...)
	dedup.Sort(ds)
	kept, dropped := dedup.Cap(ds, a.cfg.MaxStored)
	p := &published{version: m.Version, hasVersion: m.HasVersion, at: time.Now(), diags: kept, dropped: dropped}
	e := a.entry(k)
	if m.Pulled {
		e.pull = p
	} else {
		e.push = p
	}
	a.write(k, e)
	for _, ed := range a.edits {
		a.onUpdate(ctx, ed, k, m.Pulled)
	}
	a.markDirty(m.URI)
}
