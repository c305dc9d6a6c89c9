package router

import (
	"errors"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/actors/watcher"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/reach"
	"github.com/agentlsp/agentlsp/supervisor"
)

// Config configures the router of one workspace.
type Config struct {
	// Workspace is the workspace root: absolute, clean, symlinks resolved.
	Workspace string
	// Registry holds the server definitions.
	Registry *config.Registry
	// Reaper joins the goroutines of the router and its servers; required.
	Reaper *lifecycle.Reaper
	// Dispatcher runs the mailboxes of the router and its servers; nil:
	// protoactor's default.
	Dispatcher *lifecycle.Dispatcher
	// Observers receive every server's StateChanged, PublishedDiagnostics
	// and Progress (the diagnostics actor).
	Observers []*actor.PID
	// Diagnostics is the diagnostics actor, which answers Edits.
	Diagnostics *actor.PID
	// Policy is the servers' restart policy (zero: defaults).
	Policy supervisor.Policy
	// Watch starts a file watcher for the workspace.
	Watch bool
	// WatchDebounce, WatchMaxDirs and WatchFileSystem configure the
	// watcher (zero: defaults; see watcher.Config).
	WatchDebounce   time.Duration
	WatchMaxDirs    int
	WatchFileSystem func(dir string) string
	// Logger receives the actors' logs; nil discards them.
	Logger *slog.Logger
	// Reach finds the importers of a changed file (importers.go); nil: the
	// router makes its own index of the workspace when it needs one.
	Reach *reach.Index
}

// NewProps returns the props of a router. The router resolves files
// to their (server, root) pairs, spawns one server actor per pair on first
// use (lazily, exactly once), fans requests out and merges the answers,
// reference-counts open documents per session, stops idle servers and
// forwards file changes on disk. Its server children are supervised by the
// restart policy for actor panics.
func NewProps(cfg Config) *actor.Props {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	strategy := supervisor.NewStrategy(cfg.Policy)
	return actor.PropsFromProducer(func() actor.Actor {
		return &routerActor{cfg: cfg, strategy: strategy}
	}, append(cfg.Dispatcher.Options(), actor.WithSupervisor(strategy), actor.WithMailbox(lifecycle.NilSafeMailbox()))...)
}

// routerActor is the router. All its state is owned by its mailbox.
type routerActor struct {
	cfg      Config
	strategy *supervisor.Strategy
	self     *actor.PID

	servers map[messages.ServerKey]*serverEntry
	byPID   map[string]messages.ServerKey
	roots   map[rootKey]rootResult // root resolution cache
	// rootsGen counts the clearings of roots: an open document routed
	// before the last one is routed again when next synced (reroute).
	rootsGen uint64
	resolved map[string]string      // paths as given -> resolved (inWorkspace)
	docs     map[string]*document   // open documents by absolute path
	kept     map[keptKey]*keptFiles // files kept open because an answer named them, or for importers (kept.go)
	calls    map[callerKey]*fanIn   // caller (sender, request id) -> its request's fan-out
	ended    fanEnded               // fan-outs ended, still in calls
	watcher  *actor.PID
	nextID   uint64
	timers   *lifecycle.Timers
	b        barriers
	settle   settling             // reads from disk not yet taken (settle.go)
	implied  []messages.ServerKey // the roots the workspace's markers imply; nil: walk again
	edits    map[callerKey]uint64 // callers' edit ids -> the router's, for CancelEdit
	nextEdit uint64
	// reach finds a changed file's importers; changedOnDisk are the files
	// the watcher saw change since a call named them (importers.go).
	reach         *reach.Index
	changedOnDisk map[string]bool
	importersOf   map[string][]string // the importers found for a file, for its next change
	refreshing    map[string]bool     // files whose importers are being found again
}

// serverEntry is the router's view of one server actor.
type serverEntry struct {
	key    messages.ServerKey
	def    *config.Server
	lim    config.Effective
	pid    *actor.PID
	state  messages.ServerState
	gen    int // incarnation
	osPID  int // OS process id while running
	broken bool
	err    error
	sent   uint64 // requests and document messages sent (see ServerIdle)
	idle   bool   // stopping because idle
	// work is the server's work-done progress in flight: "title: message"
	// of the latest report, "" when none runs.
	work, workTitle string
}

// dispatch handles a client message admitted now or released by a barrier.
func (r *routerActor) dispatch(ctx actor.Context, h held) {
	r.forgetEnded()
	switch m := h.msg.(type) {
	case *messages.SyncDocument:
		r.onSync(ctx, h.sender, m)
	case *messages.EndSession:
		r.onEndSession(ctx, h.sender, m)
	case *messages.FileRequest:
		r.onFileRequest(ctx, h.sender, m)
	case *messages.WorkspaceRequest:
		r.onWorkspaceRequest(ctx, h.sender, m)
	case *messages.Edit:
		if !h.prelude && r.openImportersFirst(ctx, h) {
			return
		}
		r.onEdit(ctx, h.sender, m)
	case *messages.CancelEdit:
		r.onCancelEdit(ctx, h.sender, m)
	case *messages.Cancel:
		r.onCancel(ctx, h.sender, m)
	case *messages.KeepOpen:
		r.onKeepOpen(ctx, m)
	}
}

// Receive dispatches one message; it never blocks.
func (r *routerActor) Receive(ctx actor.Context) {
	if lifecycle.NilMessage(ctx.Message()) {
		lifecycle.Refuse(ctx, "router")
		return
	}
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.onStarted(ctx)
	case *actor.Stopping:
		r.strategy.Stop()
		r.timers.StopAll()
	case *actor.Terminated:
		r.onTerminated(m)
	case *messages.StateChanged:
		r.onStateChanged(m)
	case *messages.Progress:
		r.onProgress(m)
	case *messages.ServerIdle:
		r.onServerIdle(ctx, m)
	case *messages.Resolve:
		ctx.Respond(r.resolve(m.Path))
	case *messages.SyncDocument, *messages.EndSession, *messages.FileRequest, *messages.WorkspaceRequest,
		*messages.Edit, *messages.CancelEdit, *messages.Cancel, *messages.KeepOpen:
		r.admit(ctx, m) // in arrival order, behind calls held for a barrier
	case *lifecycle.Fired:
		switch m := r.timers.Fired(m).(type) {
		case *barrierTimeout:
			r.onBarrierTimeout(ctx, m)
		case *checkTimeout:
			r.onCheckTimeout(ctx, m)
		case *heldTimeout:
			r.onHeldTimeout(ctx, m)
		case *busyRetry:
			r.readAgain(ctx, m.p)
		}
	case *messages.FilesChanged:
		r.onFilesChanged(ctx, m)
	case *importersFound:
		r.onImportersFound(m)
	case *messages.GetRouterStatus:
		ctx.Respond(r.status())
	default:
		lifecycle.Refuse(ctx, "router")
	}
}

func (r *routerActor) onStarted(ctx actor.Context) {
	r.self = ctx.Self()
	r.servers = make(map[messages.ServerKey]*serverEntry)
	r.byPID = make(map[string]messages.ServerKey)
	r.roots = make(map[rootKey]rootResult)
	r.resolved = make(map[string]string)
	r.docs = make(map[string]*document)
	r.calls = make(map[callerKey]*fanIn)
	r.timers = lifecycle.NewTimers(ctx, nil)
	r.edits = make(map[callerKey]uint64)
	r.reach = r.cfg.Reach
	if r.cfg.Watch {
		r.b.probe = watcher.NewProbe()
		r.watcher = ctx.Spawn(watcher.NewProps(watcher.Config{
			Workspace: r.cfg.Workspace, Target: r.self, Reaper: r.cfg.Reaper, Probe: r.b.probe,
			Debounce: r.cfg.WatchDebounce, MaxDirs: r.cfg.WatchMaxDirs, FileSystem: r.cfg.WatchFileSystem, Logger: r.cfg.Logger,
		}))
	}
}

// server returns the actor of a (server, root) pair, spawning it on first
// use. The mailbox makes this exactly once per pair, however many agents
// touch files of that root at the same moment.
func (r *routerActor) server(ctx actor.Context, key messages.ServerKey, def *config.Server) *serverEntry {
	if e, ok := r.servers[key]; ok && !e.idle {
		return e
	}
	def = def.Clone() // the actor's own: defs from Registry.Match are shared
	observers := append([]*actor.PID{r.self}, r.cfg.Observers...)
	pid := ctx.Spawn(server.NewProps(server.Config{
		Server: def, Root: key.Root, Observers: observers,
		Policy: r.cfg.Policy, Reaper: r.cfg.Reaper, Dispatcher: r.cfg.Dispatcher, Logger: r.cfg.Logger,
	}))
	e := &serverEntry{key: key, def: def, lim: def.Effective(), pid: pid, state: messages.StateStarting}
	r.servers[key] = e
	r.byPID[pid.Id] = key
	r.cfg.Logger.Info("language server actor started", "server", key.ServerID, "root", key.Root)
	return e
}

func (r *routerActor) onProgress(m *messages.Progress) {
	e, ok := r.servers[messages.ServerKey{ServerID: m.ServerID, Root: m.Root}]
	if !ok {
		return
	}
	switch {
	case !m.Active:
		e.work, e.workTitle = "", ""
	case m.Kind == "begin":
		e.workTitle = m.Title
		fallthrough
	case m.Kind == "report":
		e.work = strings.Trim(e.workTitle+": "+m.Message, ": ")
	}
}

func (r *routerActor) onStateChanged(m *messages.StateChanged) {
	e, ok := r.servers[messages.ServerKey{ServerID: m.ServerID, Root: m.Root}]
	if !ok {
		return
	}
	e.state, e.gen, e.broken, e.err, e.osPID = m.State, m.Incarnation, m.Broken, m.Err, m.PID
	if m.State != messages.StateRunning {
		e.work = ""
	}
}

// onServerIdle stops a server that has been idle, unless the router sent
// it something since it counted (that message must be answered first).
func (r *routerActor) onServerIdle(ctx actor.Context, m *messages.ServerIdle) {
	e, ok := r.servers[m.ServerKey]
	if !ok || e.idle || e.sent != m.Activity || r.openFiles(m.ServerKey) > 0 {
		return
	}
	e.idle = true
	r.cfg.Logger.Info("stopping idle language server", "server", m.ServerID, "root", m.Root)
	ctx.Stop(e.pid)
}

// onTerminated forgets a server actor that stopped (idle, or stopped by
// its supervisor after repeated panics); the next use spawns a new one.
func (r *routerActor) onTerminated(m *actor.Terminated) {
	key, ok := r.byPID[m.Who.Id]
	if !ok {
		return
	}
	delete(r.byPID, m.Who.Id)
	if e, ok := r.servers[key]; ok && e.pid.Id == m.Who.Id {
		delete(r.servers, key)
	}
}

func (r *routerActor) status() *messages.RouterStatus {
	s := &messages.RouterStatus{Workspace: r.cfg.Workspace, Barriers: messages.BarrierStats{
		Taken: r.b.done, Skipped: r.b.skipped, Spent: r.b.spent, Reaching: r.b.reaching,
		Checked: r.settle.rechecked, Reread: r.settle.retaken}}
	for _, e := range r.servers {
		s.Servers = append(s.Servers, messages.ServerInfo{
			ServerKey: e.key, State: e.state, Incarnation: e.gen, PID: e.osPID,
			Broken: e.broken, Err: e.err, OpenFiles: r.openFiles(e.key), Work: e.work,
		})
	}
	sort.Slice(s.Servers, func(i, j int) bool {
		a, b := s.Servers[i].ServerKey, s.Servers[j].ServerKey
		return a.ServerID < b.ServerID || a.ServerID == b.ServerID && a.Root < b.Root
	})
	return s
}

// errNoTargets is the detail of an ErrNoServer when servers match the
// extension but every one is excluded for this directory.
var errNoTargets = errors.New("every matching server is excluded here by an exclusion marker")
