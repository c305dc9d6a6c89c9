package agentlsp

import (
	"context"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/editor"
	"github.com/agentlsp/agentlsp/paths"
)

// Dial attaches to the shared daemon of workspace (agentlsp serve),
// starting one detached if none runs, and returns a Runtime with the same
// API as Start's: its sessions ask the daemon, whose language servers
// every process of this user shares. Router and Diagnostics are local
// stand-ins that forward to the daemon's actors. When the daemon goes,
// the next calls attach to a new one (started if needed), with the
// sessions' documents and edits re-opened; calls in flight are answered
// by it. A call whose context ends while no daemon is attached says why
// (ErrDaemonLost, with what attaching again met). Shutdown detaches: the daemon ends this runtime's sessions and
// runs on until idle. Options are package daemon's (WithConfigFile,
// WithLogger, WithCommand, ...). It blocks until attached or ctx ends.
func Dial(ctx context.Context, workspace string, opts ...daemon.Option) (*Runtime, error) {
	ws, err := paths.Workspace(workspace)
	if err != nil {
		return nil, err
	}
	dc := daemon.DialConfig{Workspace: ws, Reaper: &lifecycle.Reaper{}}
	for _, o := range opts {
		o(&dc)
	}
	c, err := daemon.Dial(ctx, dc)
	if err != nil {
		return nil, err
	}
	cfg := Config{Workspace: ws, ConfigFile: c.ConfigFile, Logger: dc.Logger}
	reg, err := registry(cfg)
	if err != nil { // the daemon's file changed since: its timeouts are the defaults
		reg, _ = registry(Config{})
	}
	return &Runtime{cfg: cfg, workspace: ws, registry: reg, sys: c.System, reaper: dc.Reaper,
		router: c.Router, diag: c.Diagnostics, lost: c.Lost, done: make(chan struct{}), sessions: make(map[string]*Session), texts: editor.NewTexts()}, nil
}
