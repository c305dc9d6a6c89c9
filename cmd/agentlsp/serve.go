package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/daemon/rundir"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/paths"
)

const serveAbout = `
Serve runs the runtime of one workspace as this user's shared daemon, in the
foreground. agentlsp mcp, check and query with --shared attach to it (and
start it detached when none runs), as do Go programs with agentlsp.Dial:
one set of language servers for every agent on the workspace, one session
per client.

It registers in the runtime directory ($XDG_RUNTIME_DIR/agentlsp, else
agentlsp/run under the cache directory; mode 0700) with its address
(127.0.0.1 only), pid, version and a token every client must present
(file mode 0600). One daemon serves a workspace per version: clients of
another version start their own. It exits on a signal, or after --idle
with no client and no request, stopping its servers.

--http ADDR also serves MCP over streamable HTTP on a loopback address,
for clients that speak HTTP: each request must carry "Authorization:
Bearer TOKEN", the token in the daemon's entry (agentlsp status --json).`

// detachTimeout bounds serve --detach's wait for the daemon to serve.
const detachTimeout = time.Minute

// serveOptions are the serve subcommand's flags.
type serveOptions struct {
	idle   time.Duration
	http   string
	detach bool
}

// runServe is the serve subcommand.
func runServe(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("serve", "serve [--idle D] [--http ADDR] [--detach] [global flags]", serveAbout)
	var opts serveOptions
	fs.DurationVar(&opts.idle, "idle", daemon.DefaultIdle, "exit after `D` with no client and no request (0: never)")
	fs.StringVar(&opts.http, "http", "", "also serve MCP over streamable HTTP on `ADDR`, a loopback address (127.0.0.1:PORT)")
	fs.BoolVar(&opts.detach, "detach", false, "start the daemon in the background (own session, log in the runtime directory) and return once it serves")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageErrorf("serve", "unexpected argument %q: serve takes no arguments", pos[0])
	case opts.idle < 0:
		return usageErrorf("serve", "invalid --idle %v: must not be negative", opts.idle)
	}
	if opts.http != "" {
		if err := checkLoopback(opts.http); err != nil {
			return usageErrorf("serve", "%v", err)
		}
	}
	ws, err := workspaceDir(fs.global)
	if err == nil {
		ws, err = paths.Workspace(ws)
	}
	if err != nil {
		return failure(err)
	}
	dir, err := rundir.Dir()
	if err != nil {
		return failure(err)
	}
	files := rundir.Files{Dir: dir, Key: rundir.Key(ws, commandVersion())}
	if opts.detach {
		return detach(ctx, fs, opts, ws, files, std)
	}
	ready := daemon.Ready()
	err = serve(ctx, fs.global, opts, ws, files, std, ready)
	if ready != nil {
		ready(err) // no-op once it said ready
	}
	return err
}

// checkLoopback refuses an address that is not a loopback one.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid --http %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("invalid --http %q: only loopback addresses (127.0.0.1, ::1, localhost) are served", addr)
	}
	return nil
}

// detach starts the daemon in the background (this executable, serve
// without --detach) and returns once it serves.
func detach(ctx context.Context, fs *flagSet, opts serveOptions, ws string, files rundir.Files, std stdio) error {
	exe, err := os.Executable()
	if err != nil {
		return failure(err)
	}
	argv := []string{exe, "serve", "--workspace", ws, "--idle", opts.idle.String(), "--log-level", "info"}
	if fs.global.config != "" {
		abs, err := filepath.Abs(fs.global.config)
		if err != nil {
			return failure(err)
		}
		argv = append(argv, "--config", abs)
	}
	if opts.http != "" {
		argv = append(argv, "--http", opts.http)
	}
	dctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	if err := daemon.Detach(dctx, argv, files.Log()); err != nil {
		return failure(err)
	}
	if e, err := files.Find(); err == nil {
		fmt.Fprintf(std.out, "agentlsp daemon %d serves %s (log %s)\n", e.PID, e.Workspace, e.Log)
	}
	return nil
}

// serve runs the daemon in the foreground until ctx ends or it is idle.
func serve(ctx context.Context, g globalFlags, opts serveOptions, ws string, files rundir.Files, std stdio, ready func(error)) error {
	lock, err := files.AcquireDaemon()
	if errors.Is(err, rundir.ErrLocked) {
		if ready != nil { // started for a client: the other daemon serves it
			ready(nil)
			return nil
		}
		if e, ferr := files.Find(); ferr == nil {
			return failure(fmt.Errorf("agentlsp: daemon %d already serves %s", e.PID, ws))
		}
		return failure(fmt.Errorf("agentlsp: a daemon already serves %s", ws))
	}
	if err != nil {
		return failure(err)
	}
	defer lock.Release()
	var ln net.Listener
	if opts.http != "" {
		if ln, err = net.Listen("tcp", opts.http); err != nil {
			return failure(err)
		}
		defer ln.Close()
	}
	g.workspace = ws
	if g.config != "" {
		if g.config, err = filepath.Abs(g.config); err != nil {
			return failure(err)
		}
	}
	rt, stop, err := startRuntime(ctx, g, std, func(c *agentlsp.Config) {
		c.Logger = slog.New(daemon.QuietRemote(c.Logger.Handler()))
	})
	if err != nil {
		return err
	}
	defer stop()
	return failure(serveRuntime(ctx, rt, g, opts, files, ln, ready))
}

// serveRuntime makes rt the daemon: remote, registration, MCP over HTTP.
func serveRuntime(ctx context.Context, rt *agentlsp.Runtime, g globalFlags, opts serveOptions, files rundir.Files, ln net.Listener, ready func(error)) error {
	token, err := rundir.NewToken()
	if err != nil {
		return err
	}
	log := rt.System().Logger()
	act := &daemon.Activity{}
	cfg := daemon.ServeConfig{System: rt.System(), Router: rt.Router(), Diagnostics: rt.Diagnostics(),
		Workspace: rt.Workspace(), Version: commandVersion(), ConfigFile: g.config, Files: files, Token: token,
		Idle: opts.idle, Activity: act, Logger: log}
	if opts.idle == 0 {
		cfg.Idle = -1
	}
	if ready != nil {
		cfg.Ready = func(rundir.Entry) { ready(nil) }
	}
	if ln != nil {
		h := mcp.NewHTTPHandler(rt, commandVersion(), mcp.HTTPConfig{Token: token, OnRequest: act.Touch, OnSession: act.Hold})
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		served := make(chan error, 1)
		// Lives until the server is shut down below.
		go func() { served <- srv.Serve(ln) }()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			h.Close()
			srv.Shutdown(sctx)
			<-served
		}()
		cfg.HTTP = "http://" + ln.Addr().String() + "/"
	}
	return daemon.Serve(ctx, cfg)
}
