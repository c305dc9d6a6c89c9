package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon/rundir"
	"github.com/agentlsp/agentlsp/messages"
)

// DialConfig configures Dial. Zero values are the documented defaults.
type DialConfig struct {
	// Workspace is the workspace root, absolute with symlinks resolved
	// (required).
	Workspace string
	// Version selects the daemon: each version runs its own (default:
	// this module's version from the build info, or "devel").
	Version string
	// ConfigFile is the configuration the client expects; "" accepts the
	// daemon's. A daemon started by the client gets it.
	ConfigFile string
	// Command is the agentlsp command that starts a daemon, with leading
	// arguments (default: this executable when it is agentlsp, else
	// agentlsp from PATH).
	Command []string
	// Start, if not nil, starts a daemon instead of Command.
	Start func(ctx context.Context) error
	// NoStart attaches only to a running daemon.
	NoStart bool
	// Logger receives logs; nil discards them.
	Logger *slog.Logger
	// Reaper joins the client's goroutines (required): the runtime's.
	Reaper *lifecycle.Reaper
}

// Option changes a DialConfig.
type Option func(*DialConfig)

// WithConfigFile makes the client expect (and a daemon it starts use)
// this configuration file.
func WithConfigFile(path string) Option { return func(c *DialConfig) { c.ConfigFile = path } }

// WithLogger sets the client's logger.
func WithLogger(l *slog.Logger) Option { return func(c *DialConfig) { c.Logger = l } }

// WithCommand sets the agentlsp command (and leading arguments) that
// starts a daemon.
func WithCommand(argv ...string) Option { return func(c *DialConfig) { c.Command = argv } }

// WithVersion selects the daemon of that version.
func WithVersion(v string) Option { return func(c *DialConfig) { c.Version = v } }

// WithStart sets how a daemon is started (tests, embedders).
func WithStart(f func(ctx context.Context) error) Option { return func(c *DialConfig) { c.Start = f } }

// WithoutStart attaches only to a daemon that runs.
func WithoutStart() Option { return func(c *DialConfig) { c.NoStart = true } }

// Client is this process's connection to the daemon of a workspace: an
// actor system with protoactor remote, the link actor (Router) and the
// client's diagnostics PID (Diagnostics), which stand in for the daemon's.
// Stopping Router (StopFuture, as Runtime.Shutdown does) detaches: the
// connect goroutine ends and remote shuts down, joined by the Reaper.
type Client struct {
	System      *actor.ActorSystem
	Router      *actor.PID
	Diagnostics *actor.PID
	// ConfigFile is the daemon's configuration file.
	ConfigFile string

	lc *linkConfig
}

// Lost says why the client has no daemon now (ErrDaemonLost: the daemon
// went away, and what attaching again met), or nil while it is attached.
// It never blocks; it is safe for concurrent use.
func (c *Client) Lost() error {
	if p := c.lc.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// Dial attaches to the daemon that serves cfg.Workspace (starting one if
// none runs, unless NoStart) and returns the Client once attached. It
// blocks until then or ctx ends.
func Dial(ctx context.Context, cfg DialConfig) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = ModuleVersion()
	}
	dir, err := rundir.Dir()
	if err != nil {
		return nil, err
	}
	files := rundir.Files{Dir: dir, Key: rundir.Key(cfg.Workspace, cfg.Version)}
	sys := lifecycle.NewSystem(slog.New(QuietRemote(cfg.Logger.Handler())))
	a := newAuth("", cfg.Logger)
	r, _, err := startRemote(sys, a)
	if err != nil {
		sys.Shutdown()
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	lc := &linkConfig{workspace: cfg.Workspace, version: cfg.Version, configFile: cfg.ConfigFile,
		connect: func(ctx context.Context) (rundir.Entry, error) {
			return findOrStart(ctx, files, starter(cfg, files), cfg.Workspace, cfg.Version)
		},
		auth: a, ctx: lctx, cancel: cancel, wg: &sync.WaitGroup{}, log: cfg.Logger,
		ready: make(chan error, 1), stopped: make(chan struct{}),
	}
	link := sys.Root.Spawn(newLink(lc))
	reg := sys.ProcessRegistry
	diag, _ := reg.Add(&diagProc{sys: sys, link: link}, "agentlsp-link-diag"+reg.NextId())
	cfg.Reaper.Go(func() {
		<-lc.stopped
		lc.wg.Wait()
		stopRemote(r)
	})
	var attachErr error
	select {
	case attachErr = <-lc.ready:
	case <-ctx.Done():
		attachErr = ctx.Err()
	}
	if attachErr != nil {
		_ = sys.Root.StopFuture(link).Wait()
		sys.Root.Stop(diag)
		cfg.Reaper.Wait(context.Background())
		sys.Shutdown()
		return nil, fmt.Errorf("daemon: attaching to the daemon of %s: %w", cfg.Workspace, attachErr)
	}
	return &Client{System: sys, Router: link, Diagnostics: diag, ConfigFile: lc.first.ConfigFile, lc: lc}, nil
}

// attach finds (or starts) the daemon and attaches the link to it.
func attach(cfg *linkConfig, sys *actor.ActorSystem, self *actor.PID, sessions []string) (*attachment, error) {
	e, err := cfg.connect(cfg.ctx)
	if err != nil {
		return nil, err
	}
	cfg.auth.allow(e.Address, e.Token)
	front := actor.NewPID(e.Address, e.Front)
	res, err := sys.Root.RequestFuture(front, &messages.Attach{Version: cfg.version, Workspace: cfg.workspace,
		ConfigFile: cfg.configFile, LinkAddress: self.Address, LinkID: self.Id, ClientPID: os.Getpid(),
		Sessions: sessions}, attachTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("daemon %d at %s: %w", e.PID, e.Address, err)
	}
	a, ok := res.(*messages.Attached)
	if !ok {
		return nil, fmt.Errorf("daemon %d at %s: no answer (%T)", e.PID, e.Address, res)
	}
	if a.Err != nil {
		return nil, a.Err
	}
	return &attachment{entry: e, front: front, router: actor.NewPID(e.Address, a.Router),
		diag: actor.NewPID(e.Address, a.Diagnostics), ns: &namespace{client: a.Client, base: a.IDBase}}, nil
}

// findOrStart returns the entry of the live daemon of files (workspace's
// of version), starting one with start (nil: never) when none runs.
// Clients that start at once take turns on the start lock, so one daemon
// starts.
func findOrStart(ctx context.Context, files rundir.Files, start func(context.Context) error, workspace, version string) (rundir.Entry, error) {
	for range 3 {
		e, err := files.Wait(ctx)
		if !errors.Is(err, rundir.ErrNoDaemon) || start == nil {
			return e, err
		}
		lock, err := files.AcquireStart(ctx)
		if err != nil {
			return rundir.Entry{}, err
		}
		e, err = files.Wait(ctx)
		if errors.Is(err, rundir.ErrNoDaemon) {
			err = start(ctx)
			if err == nil {
				e, err = files.Wait(ctx)
			}
		}
		lock.Release()
		if !errors.Is(err, rundir.ErrNoDaemon) {
			return e, err
		}
	}
	return rundir.Entry{}, notRegistered(files, workspace, version)
}

// notRegistered is the error of daemons started that never registered
// for the client's key. It names the daemon of another version that
// serves the workspace, if one does: the agentlsp command started one of
// its own version (a Go program built with a released agentlsp module,
// and an agentlsp command of another release or a development build),
// which this client never attaches to. Before, the error said only that
// no daemon registered, and asked whether the command was the same
// version.
func notRegistered(files rundir.Files, workspace, version string) error {
	entries, _ := rundir.List(files.Dir)
	for _, e := range entries {
		if e.Workspace == workspace && e.Version != version {
			return fmt.Errorf("%w: this client is version %s, the daemon that serves %s is version %s (pid %d): "+
				"start the daemon with an agentlsp command of version %s, or attach to version %s",
				ErrStartFailed, version, workspace, e.Version, e.PID, version, e.Version)
		}
	}
	return fmt.Errorf("%w: no daemon of version %s registered for %s (is the agentlsp command the same version?)",
		ErrStartFailed, version, workspace)
}

// starter is how cfg starts a daemon: cfg.Start, or the agentlsp command
// run detached; nil with NoStart.
func starter(cfg DialConfig, files rundir.Files) func(context.Context) error {
	switch {
	case cfg.NoStart:
		return nil
	case cfg.Start != nil:
		return cfg.Start
	}
	return func(ctx context.Context) error {
		argv := cfg.Command
		if len(argv) == 0 {
			cmd, err := command()
			if err != nil {
				return err
			}
			argv = []string{cmd}
		}
		args := append(append([]string(nil), argv[1:]...), "serve", "--detach", "--workspace", cfg.Workspace)
		if cfg.ConfigFile != "" {
			args = append(args, "--config", cfg.ConfigFile)
		}
		out, err := exec.CommandContext(ctx, argv[0], args...).CombinedOutput()
		if err != nil {
			if said := strings.TrimSpace(string(out)); said != "" {
				err = fmt.Errorf("%v: %s", err, said)
			}
			return fmt.Errorf("%w: %s %s: %v", ErrStartFailed, argv[0], strings.Join(args, " "), err)
		}
		return nil
	}
}

// command is the agentlsp command: this executable when it is agentlsp,
// else agentlsp from PATH.
func command() (string, error) {
	if exe, err := os.Executable(); err == nil && strings.TrimSuffix(filepath.Base(exe), ".exe") == "agentlsp" {
		return exe, nil
	}
	if p, err := exec.LookPath("agentlsp"); err == nil {
		return p, nil
	}
	return "", ErrNoCommand
}

// ModuleVersion is the version of the agentlsp module this program was
// built with, or "devel".
func ModuleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if bi.Main.Path != "github.com/agentlsp/agentlsp" {
		v = ""
		for _, d := range bi.Deps {
			if d.Path == "github.com/agentlsp/agentlsp" {
				v = d.Version
			}
		}
	}
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return v
}
