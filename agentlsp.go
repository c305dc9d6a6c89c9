// Package agentlsp gives AI coding agents the code intelligence of real
// language servers. Start a Runtime for a workspace, open a Session per
// agent, and edit documents, wait for the diagnostics an edit caused,
// navigate code, and receive passive diagnostic batches.
//
// The runtime is an actor system (protoactor-go): a router actor maps files
// to language-server actors (one per server and project root, shared by
// every session) and holds the one record of every open document, and a
// diagnostics actor ties diagnostics to document versions. This package is
// the thin typed edge over those actors (navigation answers are the types
// of package results); orchestrators that speak actors can send the
// messages package's types to Runtime.Router and Runtime.Diagnostics
// directly.
//
// All methods are safe for concurrent use. Every call that waits takes a
// context and returns when it is cancelled, when its answer arrives, or when
// the runtime shuts down (ErrShutdown); no call leaves a goroutine behind.
package agentlsp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/router"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/editor"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/reach"
	"github.com/agentlsp/agentlsp/supervisor"
)

// Config configures a Runtime. Zero values are the documented defaults.
type Config struct {
	// Workspace is the root every path must stay inside (required).
	Workspace string
	// ConfigFile is an agentlsp JSON config, an opencode.json or a Claude
	// Code .lsp.json; "" uses the built-in servers only.
	ConfigFile string
	// Registry, when set, is used instead of ConfigFile and the built-ins.
	Registry *config.Registry
	// ServerPath lists directories searched for server commands before
	// PATH (default: config.DefaultServerPath, where
	// scripts/install-servers.sh installs them).
	ServerPath []string
	// NoWatch disables the file watcher.
	NoWatch bool
	// DiagnosticsTimeout overrides the servers' wait for diagnostics after
	// an edit (zero or negative: each server's diagnosticsTimeout, 3s).
	DiagnosticsTimeout time.Duration
	// Settle is the window after a push for servers that publish in phases
	// (zero or negative: 150ms).
	Settle time.Duration
	// MinSeverity of reported diagnostics (default: errors only).
	MinSeverity messages.Severity
	// Policy is the servers' restart policy (default: 500ms doubling to
	// 30s, 5 crashes in 3 minutes).
	Policy supervisor.Policy
	// Logger receives logs (never stdout); nil discards them.
	Logger *slog.Logger
}

// mailboxThroughput is how many messages an actor handles before it lets
// other goroutines run (protoactor's default).
const mailboxThroughput = 300

// Runtime is a running agentlsp for one workspace.
type Runtime struct {
	cfg       Config
	workspace string
	registry  *config.Registry
	sys       *actor.ActorSystem
	reaper    *lifecycle.Reaper
	// dispatcher runs the mailboxes of the router, the servers and the
	// diagnostics actor on workers the reaper joins.
	dispatcher *lifecycle.Dispatcher
	router     *actor.PID
	diag       *actor.PID
	// lost, for a runtime of Dial, says why it has no daemon now (nil
	// while attached); nil for a runtime of its own.
	lost func() error

	ids      atomic.Uint64
	done     chan struct{} // closed by Shutdown
	stopOnce sync.Once
	mu       sync.Mutex
	sessions map[string]*Session
	texts    *editor.Texts // the files editor views read
}

// Start starts a runtime for cfg.Workspace. It is lazy: no language server
// runs until a file needs one. It blocks only to read the configuration.
func Start(ctx context.Context, cfg Config) (*Runtime, error) {
	ws, err := paths.Workspace(cfg.Workspace)
	if err != nil {
		return nil, err
	}
	reg, err := registry(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	rt := &Runtime{
		cfg: cfg, workspace: ws, registry: reg, reaper: &lifecycle.Reaper{},
		sys: lifecycle.NewSystem(cfg.Logger), done: make(chan struct{}), sessions: make(map[string]*Session), texts: editor.NewTexts(),
	}
	rt.dispatcher = lifecycle.NewDispatcher(rt.reaper, mailboxThroughput)
	imports := reach.New(ws) // one cache of the workspace's imports for both actors
	rt.diag = rt.sys.Root.Spawn(diagnostics.NewProps(diagnostics.Config{
		MinSeverity: cfg.MinSeverity, Logger: cfg.Logger, Workspace: ws, Reaper: rt.reaper, Dispatcher: rt.dispatcher, Reach: imports,
	}))
	rt.router = rt.sys.Root.Spawn(router.NewProps(router.Config{
		Workspace: ws, Registry: reg, Reaper: rt.reaper, Dispatcher: rt.dispatcher, Observers: []*actor.PID{rt.diag}, Diagnostics: rt.diag,
		Policy: cfg.Policy, Watch: !cfg.NoWatch, Logger: cfg.Logger, Reach: imports,
	}))
	return rt, nil
}

// registry is Config.Registry or the configuration file over the
// built-ins, with server commands resolved against ServerPath.
func registry(cfg Config) (*config.Registry, error) {
	dirs := cfg.ServerPath
	if dirs == nil {
		dirs = config.DefaultServerPath()
	}
	if cfg.Registry != nil {
		return cfg.Registry.WithCommandsIn(dirs), nil
	}
	return config.LoadRegistry(cfg.ConfigFile, dirs)
}

// Workspace is the workspace root (absolute, symlinks resolved).
func (rt *Runtime) Workspace() string { return rt.workspace }

// Router is the router actor, for orchestrators that send messages.
func (rt *Runtime) Router() *actor.PID { return rt.router }

// Diagnostics is the diagnostics actor.
func (rt *Runtime) Diagnostics() *actor.PID { return rt.diag }

// System is the actor system the runtime runs on.
func (rt *Runtime) System() *actor.ActorSystem { return rt.sys }

// Registry is the effective server configuration.
func (rt *Runtime) Registry() *config.Registry { return rt.registry }

// killGrace is how long Shutdown waits for killed processes to be reaped
// once its context ended.
const killGrace = time.Second

// Shutdown ends every session, shuts every language server down gracefully
// (shutdown, exit, then SIGKILL of its process group after its shutdown
// timeout, or as soon as ctx ends) and waits for every goroutine and
// process, bounded by ctx (and a second more for killed processes). Calls
// in flight return ErrShutdown at once. It is safe to call more than once.
func (rt *Runtime) Shutdown(ctx context.Context) error {
	var err error
	rt.stopOnce.Do(func() {
		close(rt.done)
		rt.mu.Lock()
		sessions := rt.sessions
		rt.sessions = map[string]*Session{}
		rt.mu.Unlock()
		for _, s := range sessions {
			s.stop()
		}
		// Out of time, graceful shutdowns give way to SIGKILL.
		defer context.AfterFunc(ctx, rt.reaper.Hurry)()
		_ = rt.sys.Root.StopFuture(rt.router).Wait()
		_ = rt.sys.Root.StopFuture(rt.diag).Wait()
		rt.dispatcher.Close() // its workers end; the reaper joins them
		if !rt.reaper.Wait(ctx) {
			// Out of time: the processes are being killed; give them a
			// moment to be reaped. Only what outlives that is an error.
			grace, cancel := context.WithTimeout(context.Background(), killGrace)
			if !rt.reaper.Wait(grace) {
				err = fmt.Errorf("agentlsp: shutdown: %w", ctx.Err())
			}
			cancel()
		}
		rt.sys.Shutdown()
	})
	return err
}

// Session returns the session with that id, creating it on first use. A
// session is one agent: its own diagnostics dedup state and subscription,
// its own references on open documents.
func (rt *Runtime) Session(id string) *Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if s, ok := rt.sessions[id]; ok {
		return s
	}
	s := &Session{rt: rt, id: id}
	rt.sessions[id] = s
	return s
}

// closing reports whether Shutdown has begun.
func (rt *Runtime) closing() bool {
	select {
	case <-rt.done:
		return true
	default:
		return false
	}
}

// Servers lists the language servers the runtime runs, with their state.
func (rt *Runtime) Servers(ctx context.Context) ([]messages.ServerInfo, error) {
	res, err := rt.ask(ctx, rt.router, &messages.GetRouterStatus{}, nil)
	if err != nil {
		return nil, err
	}
	return res.(*messages.RouterStatus).Servers, nil
}
