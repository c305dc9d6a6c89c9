package diagnostics

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/reach"
)

// Defaults of the diagnostics actor (DESIGN.md section 4).
const (
	DefaultSettle       = 150 * time.Millisecond
	DefaultEditTimeout  = 3 * time.Second
	DefaultBatchDelay   = 100 * time.Millisecond
	DefaultMaxStored    = 1000 // diagnostics kept per (server, document)
	pendingEditLifetime = time.Minute
	maxSessions         = 10000
	maxVersions         = 1 << 16
)

// Config configures the diagnostics actor. Zero values are the defaults.
type Config struct {
	// MinSeverity of passive batches (zero: errors only).
	MinSeverity messages.Severity
	// BatchDelay gathers updates before a passive batch is built.
	BatchDelay time.Duration
	// MaxStored bounds the diagnostics kept per (server, document); the
	// rest is counted.
	MaxStored int
	// MaxFiles is the per-session delivered-set LRU size (default 500).
	MaxFiles int
	// MaxKeys bounds the (server, document) entries stored (default
	// store.MaxKeys).
	MaxKeys int
	Logger  *slog.Logger
	// Clock is the time source (tests); nil: real time.
	Clock lifecycle.Clock
	// Workspace and Reaper let the actor tell which files an edit can
	// reach (by their imports, read in reaper goroutines); without them
	// every change could reach every file.
	Workspace string
	Reaper    *lifecycle.Reaper
	// Reach is the workspace's import index, shared with the router; nil:
	// the actor makes its own.
	Reach *reach.Index
	// Dispatcher runs the actor's mailbox; nil: protoactor's default.
	Dispatcher *lifecycle.Dispatcher
}

// NewProps returns the props of the diagnostics actor.
func NewProps(cfg Config) *actor.Props {
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
	if cfg.Clock == nil {
		cfg.Clock = lifecycle.RealClock{}
	}
	return actor.PropsFromProducer(func() actor.Actor { return &diagnosticsActor{cfg: cfg} },
		append(cfg.Dispatcher.Options(), actor.WithMailbox(lifecycle.NilSafeMailbox()))...)
}

// serverView is what the actor knows of a server's state.
type serverView struct {
	state    messages.ServerState
	broken   bool
	indexing bool
	err      error
	// loadFailure is what the server said when it could not load its
	// project (messages.ProjectLoad), "" when it did not or no longer
	// does: its files are answered project_error, never fresh.
	loadFailure string
	// crash is why the server last crashed, kept through its restart
	// until it publishes again (nil: it has not crashed since).
	crash error
	// versioned: the server has sent a push with a document version, so a
	// push without one is not about an open document's current text.
	versioned bool
	// closedFiles: the server has published errors for a document closed
	// on it, so it diagnoses files that are not open (gopls), and what it
	// publishes without a version about a closed document describes the
	// file on disk. A server that diagnoses open files only (tsserver)
	// clears a closed document's diagnostics with an empty push.
	closedFiles bool
	// openOnly: the server diagnoses open files only, by its definition
	// (DocumentSent.OpenOnly).
	openOnly bool
	// pulls: the server offers pull diagnostics (DocumentSent.Pulls), and
	// is asked for each version's.
	pulls bool
	// work is the server's work-done progress in flight, "" when none.
	work, workTitle string
	// workEnded is when the server last finished starting or a work of
	// its own (a workspace load): the diagnosis of the files it was given
	// meanwhile begins only after it (gopls: 0.2-0.4 s after "Finished
	// loading packages" on a loaded machine), so an edit past its timeout
	// gives the server its timeout again from then (working).
	workEnded time.Time
	// The server's own signal of complete diagnostics (gopls's
	// "diagnosing" progress): whether it gives one, when a diagnosis last
	// began, and how many run now.
	signals   bool
	diagBegan time.Time
	diagnoses int
	// gaps are the last phase gaps seen (a push after the one that
	// satisfied an edit), to learn the settle window of a server without
	// signals.
	gaps []time.Duration
}

func (a *diagnosticsActor) onProgress(ctx actor.Context, m *messages.Progress) {
	v := a.server(messages.ServerKey{ServerID: m.ServerID, Root: m.Root})
	if v.indexing && !m.Active && !m.Diagnosing {
		v.workEnded = a.now()
	}
	v.indexing = m.Active
	if m.Diagnosing && m.Kind == "begin" {
		v.signals, v.diagBegan = true, a.now()
	}
	v.diagnoses = m.Diagnoses
	if m.Diagnosing && m.Diagnoses == 0 {
		// A diagnosis ended with none left: edits waiting may be complete.
		a.edits.Each(func(e *edits.Edit) { a.check(ctx, e) })
	}
	switch {
	case !m.Active:
		v.work, v.workTitle = "", ""
	case m.Kind == "begin":
		v.workTitle = m.Title
		v.work = strings.Trim(m.Title+": "+m.Message, ": ")
	case m.Kind == "report":
		v.work = strings.Trim(v.workTitle+": "+m.Message, ": ")
	}
}

// diagnosticsActor is the shell around the store and the edit tracker: it
// feeds them messages and timers and answers from what they hold.
type diagnosticsActor struct {
	cfg    Config
	timers *lifecycle.Timers

	store    *store.Store
	edits    *edits.Tracker
	servers  map[messages.ServerKey]*serverView
	versions map[store.Key]int32    // latest version an edit synced, for staleness
	views    map[store.Key]sentView // latest version sent, and the server's view with it
	// opened is when each document was last opened on a server that
	// diagnoses open files only (uncheckedAt).
	opened   map[store.Key]time.Time
	sessions map[string]*session
	// subscribed are the sessions with a subscriber, which every
	// publication is checked against (not every session: a thousand
	// agents that do not subscribe cost a publication nothing).
	subscribed map[string]*session
	flushing   bool // a batch flush is scheduled

	reach      *reach.Index // nil without a workspace
	reachJobs  int
	reachQueue []reachJob
	disk       []*diskChange // recent changes on disk, oldest first
	nextDisk   uint64
	gone       goneFiles // files deleted on disk: never an answer's other files
}

// Receive dispatches one message; it never blocks.
func (a *diagnosticsActor) Receive(ctx actor.Context) {
	if lifecycle.NilMessage(ctx.Message()) {
		lifecycle.Refuse(ctx, "diagnostics actor")
		return
	}
	a.handle(ctx, ctx.Message())
}

func (a *diagnosticsActor) handle(ctx actor.Context, msg any) {
	switch m := msg.(type) {
	case *actor.Started:
		a.onStarted(ctx)
	case *actor.Stopping, *actor.Restarting:
		if a.timers != nil {
			a.timers.StopAll()
		}
	case *lifecycle.Fired:
		a.handle(ctx, a.timers.Fired(m))
	case *messages.PublishedDiagnostics:
		a.onPublished(ctx, m)
	case *messages.DocumentSent:
		a.onSent(m)
	case *messages.PullsOffered:
		a.server(messages.ServerKey{ServerID: m.ServerID, Root: m.Root}).pulls = m.Pulls
	case *messages.StateChanged:
		a.onState(ctx, m)
	case *messages.Progress:
		a.onProgress(ctx, m)
	case *messages.ProjectLoad:
		a.server(messages.ServerKey{ServerID: m.ServerID, Root: m.Root}).loadFailure = m.Failure
	case *messages.EditStarted:
		a.onEditStarted(ctx, m)
	case *messages.AwaitEdit:
		a.onAwaitEdit(ctx, m)
	case *editTimeout:
		a.onEditTimeout(ctx, m)
	case *editSettled:
		a.onEditSettled(ctx, m)
	case *editExpired:
		a.edits.Forget(m.id)
	case *messages.EditAborted:
		a.onEditAborted(m)
	case *messages.EditCancelled:
		a.onEditCancelled(m)
	case *messages.Subscribe:
		a.onSubscribe(ctx, m)
	case *messages.Unsubscribe:
		delete(a.sessions, m.Session)
		delete(a.subscribed, m.Session)
	case *messages.BatchAck:
		a.onAck(m)
	case *flushBatches:
		a.onFlush(ctx)
	case *messages.GetDiagnostics:
		ctx.Respond(a.snapshot(m))
	case *messages.FilesChanged:
		a.onDiskChanged(ctx, m)
	case *reachKnown:
		a.onReachKnown(ctx, m)
	default:
		lifecycle.Refuse(ctx, "diagnostics actor")
	}
}

func (a *diagnosticsActor) onStarted(ctx actor.Context) {
	a.timers = lifecycle.NewTimers(ctx, a.cfg.Clock)
	a.store = store.New(a.cfg.MaxKeys)
	a.edits = edits.New()
	a.servers = make(map[messages.ServerKey]*serverView)
	a.versions = make(map[store.Key]int32)
	a.views = make(map[store.Key]sentView)
	a.opened = make(map[store.Key]time.Time)
	a.sessions = make(map[string]*session)
	a.subscribed = make(map[string]*session)
	switch {
	case a.cfg.Reach != nil:
		a.reach = a.cfg.Reach
	case a.cfg.Workspace != "":
		a.reach = reach.New(a.cfg.Workspace)
	}
}

func (a *diagnosticsActor) now() time.Time { return a.cfg.Clock.Now() }

// reconfiguring: the server is stopped until its changing configuration
// files are quiet (messages.ErrReconfiguring); it will start again.
func (v *serverView) reconfiguring() bool {
	return v.state == messages.StateError && !v.broken && errors.Is(v.err, messages.ErrReconfiguring)
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
	if v.state == messages.StateStarting && m.State == messages.StateRunning {
		v.workEnded = a.now()
	}
	v.state, v.broken, v.err = m.State, m.Broken, m.Err
	if m.State == messages.StateError && m.Err != nil && !errors.Is(m.Err, messages.ErrReconfiguring) {
		v.crash = m.Err
	}
	if m.State != messages.StateRunning {
		v.indexing = false
	}
	if m.State == messages.StateStarting {
		v.loadFailure = "" // a new process loads its project again
	}
	if m.Broken {
		// Edits waiting on a broken server will get nothing more from it.
		a.edits.Each(func(e *edits.Edit) { a.check(ctx, e) })
	}
}

// onPublished stores a push or pull result (sorted, capped) and lets the
// edits and sessions interested in the document know.
func (a *diagnosticsActor) onPublished(ctx actor.Context, m *messages.PublishedDiagnostics) {
	server := messages.ServerKey{ServerID: m.ServerID, Root: m.Root}
	a.cfg.Logger.Debug("diagnostics received", "server", m.ServerID, "uri", m.URI, "version", m.Version,
		"hasVersion", m.HasVersion, "pulled", m.Pulled, "count", len(m.Diagnostics), "incarnation", m.Incarnation)
	ds := append([]messages.Diagnostic(nil), m.Diagnostics...)
	dedup.Sort(ds)
	kept, dropped := dedup.Cap(ds, a.cfg.MaxStored)
	now := a.now()
	if m.HasVersion && !m.Pulled {
		a.server(server).versioned = true
	}
	a.server(server).crash = nil // it serves again
	k := store.Key{Server: server, URI: m.URI}
	a.store.Write(k, m.Pulled, &store.Published{Version: m.Version,
		HasVersion: m.HasVersion, At: now, Diags: kept, Dropped: dropped, View: m.View})
	if !m.Pulled && !m.HasVersion && a.versions[k] == closedVersion {
		sv := a.server(server)
		sv.closedFiles = sv.closedFiles || len(m.Diagnostics) > 0
		if sv.closedFiles {
			delete(a.versions, k) // a closed file described as it is on disk
		}
	}
	if !m.Pulled { // a push may extend the settle window of any edit of that server
		a.edits.Each(func(e *edits.Edit) { a.edits.Pushed(e, server, m.URI, now) })
	}
	// What an edit waits for is its own document's entry.
	a.edits.EachOf(m.URI, func(e *edits.Edit) { a.check(ctx, e) })
	a.markDirty(m.URI)
}
