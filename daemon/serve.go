package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/daemon/rundir"
)

// DefaultIdle is how long a daemon lives with no client and no message.
const DefaultIdle = 10 * time.Minute

// frontName is the front actor's process id in every daemon.
const frontName = "agentlsp-front"

// ServeConfig configures Serve. Zero values are the documented defaults.
type ServeConfig struct {
	// System, Router and Diagnostics are the runtime's actor system and
	// actors (required).
	System      *actor.ActorSystem
	Router      *actor.PID
	Diagnostics *actor.PID
	// Workspace, Version and ConfigFile describe the runtime; clients of
	// another version or configuration are refused.
	Workspace  string
	Version    string
	ConfigFile string
	// Files is where the daemon registers; the caller holds its daemon
	// lock (rundir.Files.AcquireDaemon) for as long as Serve runs.
	Files rundir.Files
	// Token is what clients must present ("" makes a new one).
	Token string
	// Idle: Serve returns after this long with no client, no message and
	// no Activity hold (default DefaultIdle; negative: never).
	Idle time.Duration
	// HTTP is the address of the MCP HTTP endpoint, registered in the
	// entry ("" for none); Activity is its activity.
	HTTP     string
	Activity *Activity
	// Ready, if not nil, is called once the daemon is registered.
	Ready func(rundir.Entry)
	// Logger receives logs; nil discards them.
	Logger *slog.Logger
}

// Activity is activity outside protoactor remote that keeps a daemon from
// idling (MCP over HTTP). Safe for concurrent use.
type Activity struct {
	last  atomic.Int64
	holds atomic.Int32
}

// Touch marks activity now.
func (a *Activity) Touch() { a.last.Store(time.Now().UnixNano()) }

// Hold keeps the daemon alive until release is called (once).
func (a *Activity) Hold() (release func()) {
	a.holds.Add(1)
	a.Touch()
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			a.Touch()
			a.holds.Add(-1)
		}
	}
}

// actorsStartWait bounds the wait for the runtime's actors to be done
// starting before the daemon listens.
const actorsStartWait = time.Minute

// Serve makes the runtime reachable by clients: protoactor remote on a
// free port of 127.0.0.1 with token checks, the front actor, and the
// entry in the runtime directory. It blocks until ctx ends or the daemon
// was idle for cfg.Idle, then removes the entry, stops the front and
// shuts remote down (bounded); the caller then shuts the runtime down and
// releases the lock. Clients attached when it returns re-attach to the
// next daemon.
func Serve(ctx context.Context, cfg ServeConfig) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Token == "" {
		tok, err := rundir.NewToken()
		if err != nil {
			return err
		}
		cfg.Token = tok
	}
	a := newAuth(cfg.Token, log)
	// protoactor remote sets the system's address, which every spawn
	// reads: let the runtime's actors finish what they started (the router
	// spawns the watcher when it starts) before it does. The wait is long
	// (actorsStartWait): a start on a loaded machine outlasted a 5 s
	// one, and an answer that comes after its future timed out is written
	// into the future as Result reads it (protoactor's futures do not
	// guard against a late answer; the race detector caught it in a
	// daemon under CI).
	for _, pid := range []*actor.PID{cfg.Router, cfg.Diagnostics} {
		_ = cfg.System.Root.RequestFuture(pid, &actor.Touch{}, actorsStartWait).Wait()
	}
	r, addr, err := startRemote(cfg.System, a)
	if err != nil {
		return err
	}
	var clients atomic.Int32
	front, err := cfg.System.Root.SpawnNamed(newFront(frontConfig{
		router: actor.NewPID(addr, cfg.Router.Id), diag: actor.NewPID(addr, cfg.Diagnostics.Id),
		workspace: cfg.Workspace, version: cfg.Version, configFile: cfg.ConfigFile, address: addr,
		started: time.Now(), clients: &clients, log: log,
	}), frontName)
	if err != nil {
		stopRemote(r)
		return fmt.Errorf("daemon: %w", err)
	}
	defer func() {
		_ = cfg.System.Root.StopFuture(front).Wait()
		stopRemote(r)
	}()
	e := rundir.Entry{Workspace: cfg.Workspace, Version: cfg.Version, ConfigFile: cfg.ConfigFile, PID: os.Getpid(),
		Address: addr, Front: front.Id, Token: cfg.Token, HTTP: cfg.HTTP, Started: time.Now(), Log: cfg.Files.Log()}
	if err := cfg.Files.Write(e); err != nil {
		return err
	}
	defer cfg.Files.Remove()
	log.Info("daemon: serving", "workspace", cfg.Workspace, "address", addr, "pid", e.PID, "version", cfg.Version)
	if cfg.Ready != nil {
		cfg.Ready(e)
	}
	waitIdle(ctx, cfg, a, &clients, log)
	return nil
}

// waitIdle returns when ctx ends or when, for cfg.Idle, no client was
// attached, no message arrived and nothing held cfg.Activity.
func waitIdle(ctx context.Context, cfg ServeConfig, a *auth, clients *atomic.Int32, log *slog.Logger) {
	idle := cfg.Idle
	if idle == 0 {
		idle = DefaultIdle
	}
	if idle < 0 {
		<-ctx.Done()
		return
	}
	act := cfg.Activity
	if act == nil {
		act = &Activity{}
	}
	act.Touch()
	tick := time.NewTicker(min(max(idle/4, 10*time.Millisecond), 5*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		last := a.idleSince()
		if t := time.Unix(0, act.last.Load()); t.After(last) {
			last = t
		}
		if clients.Load() > 0 || act.holds.Load() > 0 {
			a.touch()
			continue
		}
		if time.Since(last) >= idle {
			log.Info("daemon: idle: exiting", "idle", idle)
			return
		}
	}
}
