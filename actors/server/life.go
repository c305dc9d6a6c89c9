package server

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"go.lsp.dev/protocol"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/lookpath"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/transport"
)

var (
	errActorRestarted = errors.New("the server actor restarted after an internal error")
	errReconfigured   = errors.New("the server restarted to read its changed configuration")
)

// restartNow: the backoff delay after a crash has passed.
type restartNow struct{ gen int }

// start begins a new incarnation: a goroutine (joined by the reaper)
// spawns the process and performs the handshake.
func (a *serverActor) start(ctx actor.Context) {
	a.st.gen++
	gen := a.st.gen
	a.inc = newIncarnation(gen)
	a.osPID = 0
	a.caps = serverCaps{}
	clear(a.regs)
	clear(a.matchers)
	a.pulls.Reset()
	a.dropPulls()
	clear(a.progress)
	a.signals, a.lastTouch, a.repulledAt = false, touchMark{}, 0 // barrier.go
	a.resetCheck(false)                                          // savecheck.go
	a.stampConfigFiles()                                         // reconfigure.go
	a.afterIndex = nil                                           // their calls were drained and wait for this start
	a.notReady, a.readySeen = false, false                       // ready.go; afterReady's calls wait for this start's line
	a.resetLoad(ctx)                                             // load.go
	a.setState(ctx, messages.StateStarting, nil)

	srv, lim := a.cfg.Server, a.lim
	send := lifecycle.Sender(ctx, a.self)
	h := handshake{
		opts: transport.Options{
			Command: srv.Command, Args: srv.Args, Env: processEnv(srv.Args, srv.Env), Dir: a.cfg.Root,
			Network:          networkOf(lim.Transport),
			Address:          srv.Address,
			DialTimeout:      lim.StartupTimeout,
			Settings:         srv.Settings,
			WorkspaceFolders: []protocol.WorkspaceFolder{{URI: paths.URI(a.cfg.Root), Name: filepath.Base(a.cfg.Root)}},
			MaxMessageSize:   lim.MaxMessageSize,
			Logger:           a.cfg.Logger,
			OnEvent: func(method string, params json.RawMessage) {
				send(&incEvent{gen: gen, method: method, params: params})
			},
		},
		init:     initializeParams(a.cfg.Root, srv.InitializationOptions),
		settings: settingsOrEmpty(srv.Settings),
		timeout:  lim.StartupTimeout,
	}
	inc := a.inc
	a.cfg.Reaper.Go(func() { inc.run(h, send) })
}

func networkOf(kind string) string {
	if kind == "stdio" {
		return ""
	}
	return kind
}

func settingsOrEmpty(s map[string]any) any {
	if s == nil {
		return map[string]any{}
	}
	return s
}

// processEnv is what a server's process adds to agentlsp's environment:
// its configured env, and the inherited TMPDIR for a server that talks to
// a daemon shared with other processes (gopls -remote=auto), which finds
// it through the temporary directory and would otherwise get one of its
// own that goes with the server (transport: privateTemp).
func processEnv(args []string, env map[string]string) []string {
	out := envList(env)
	if _, set := env["TMPDIR"]; set {
		return out
	}
	for _, arg := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if strings.HasPrefix(arg, "-") && name == "remote" {
			return append(out, "TMPDIR="+os.TempDir())
		}
	}
	return out
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// onIncStarted: the handshake succeeded; the server runs. Every document
// that was open is (re)opened with its latest text, then the requests that
// waited are sent.
func (a *serverActor) onIncStarted(ctx actor.Context, m *incStarted) {
	if !a.current(m.gen) {
		return
	}
	caps, err := parseCaps(m.result)
	if err != nil {
		a.inc.kill()
		a.crashed(ctx, errors.Join(errors.New("invalid initialize result"), err), nil)
		return
	}
	caps.tsserver = usesTSServerPull(a.cfg.Server, caps)
	if a.cfg.Server.DiagnosticsPull == config.PullTSServer && !caps.tsserver {
		a.cfg.Logger.Warn("diagnosticsPull tsserver: the server does not offer "+tsserverCommand+"; taking its pushes",
			"server", a.cfg.Server.ID)
	}
	a.caps, a.osPID, a.broken, a.lastErr = caps, m.osPID, false, nil
	a.runningSince = a.cfg.Clock.Now()
	a.awaitReady()
	a.resetCheck(true)
	a.setState(ctx, messages.StateRunning, nil)
	a.reopenAll(ctx)
	a.dispatchWaiting(ctx)
}

// current reports whether gen is the running incarnation: messages of an
// older process are ignored.
func (a *serverActor) current(gen int) bool { return a.inc != nil && a.inc.gen == gen }

func (a *serverActor) onIncFailed(ctx actor.Context, m *incFailed) {
	if !a.current(m.gen) {
		return
	}
	a.crashed(ctx, m.err, m.stderr)
}

func (a *serverActor) onIncExited(ctx actor.Context, m *incExited) {
	if !a.current(m.gen) {
		return
	}
	err := m.err
	if err == nil {
		err = errors.New("the server exited without being asked to")
	}
	a.crashed(ctx, err, m.stderr)
}

// crashed handles the end of an incarnation that nobody asked for: the
// supervisor policy decides between a restart after a backoff, for which
// the pending requests of a server that crashed wait (holdForRestart), and
// broken, which answers them with the cause (as a failed start does).
func (a *serverActor) crashed(ctx actor.Context, cause error, stderr []string) {
	a.inc = nil
	a.osPID = 0
	kind := messages.ErrServerCrashed
	if errors.Is(cause, messages.ErrStartupTimeout) {
		kind = messages.ErrStartupTimeout
	}
	d := supervisor.Decide(a.cfg.Policy, a.st.budget, cause, a.lim.RestartOnCrash, a.cfg.Clock.Now(), a.cfg.Rand())
	if d.Action == supervisor.Broken {
		kind = messages.ErrServerBroken
	}
	serr := a.serverError(kind, cause, stderr)
	a.lastErr = serr
	// The state goes to the observers (the router) before any request is
	// answered: a caller told of the failure who then asks the router for
	// the servers' states finds the failure there (a probe's caller found
	// the server still starting).
	if d.Action == supervisor.Broken {
		a.broken, a.retryAt = true, d.RetryAt
		a.cfg.Logger.Warn("language server broken", "server", a.cfg.Server.ID, "root", a.cfg.Root, "err", serr)
		a.setState(ctx, messages.StateError, serr)
		a.failAll(ctx, serr)
		return
	}
	a.st.restarts++
	a.cfg.Logger.Info("language server crashed; restarting", "server", a.cfg.Server.ID,
		"root", a.cfg.Root, "delay", d.Delay, "err", cause)
	a.setState(ctx, messages.StateError, serr)
	if kind == messages.ErrServerCrashed {
		a.holdForRestart(ctx, serr, true)
	} else {
		a.failAll(ctx, serr) // it did not start: say so now, not after every try
	}
	a.timers.After(d.Delay, &restartNow{gen: a.st.gen})
}

func (a *serverActor) onRestartNow(ctx actor.Context, m *restartNow) {
	if a.inc != nil || a.broken || m.gen != a.st.gen {
		return
	}
	a.start(ctx)
}

// retryBroken starts a new incarnation of a broken server when the policy
// allows a new try: the crash budget window has passed, or the missing
// binary now exists.
func (a *serverActor) retryBroken(ctx actor.Context) bool {
	now := a.cfg.Clock.Now()
	if a.retryAt.IsZero() {
		if _, err := lookpath.Look(a.cfg.Server.Command); err != nil {
			return false
		}
	} else if now.Before(a.retryAt) {
		return false
	}
	a.broken = false
	a.start(ctx)
	return true
}

// serverError builds the error requests get for this server.
func (a *serverActor) serverError(kind, cause error, stderr []string) *messages.ServerError {
	e := &messages.ServerError{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, Kind: kind,
		Stderr: append([]string(nil), stderr...),
	}
	if cause != nil {
		e.Cause = cause.Error()
	}
	if supervisor.Classify(cause) == supervisor.SpawnFailure {
		e.Hint = spawnHint(cause, a.cfg.Server)
	}
	return e
}

// spawnHint says what to do about a command that cannot be started: a
// directory, or a file without the execute bit, was there already, and
// "install it and make sure it is in PATH" sent the user to do what was
// done.
func spawnHint(cause error, srv *config.Server) string {
	switch {
	case errors.Is(cause, syscall.EISDIR):
		return "the server's command must be its executable, not a directory"
	case errors.Is(cause, fs.ErrPermission):
		return "make it executable (chmod +x), or name the server's executable"
	case srv.InstallHint != "":
		return srv.InstallHint
	}
	return "install " + srv.Command + " and make sure it is in PATH"
}
