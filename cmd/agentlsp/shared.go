package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/daemon"
)

// dialTimeout bounds attaching to (and starting) the shared daemon.
const dialTimeout = 2 * time.Minute

// sharedFlag registers --shared (mcp, check and query).
func (fs *flagSet) sharedFlag() {
	fs.BoolVar(&fs.global.shared, "shared", false,
		"use this user's shared daemon for the workspace (agentlsp serve), starting it if none runs, instead of a runtime of its own")
}

// dialRuntime is startRuntime for --shared: a runtime attached to the
// workspace's daemon, started detached with this executable if none runs.
// Its stop detaches (the daemon runs on until idle).
func dialRuntime(ctx context.Context, g globalFlags, std stdio) (*agentlsp.Runtime, func(), error) {
	logger := slog.New(slog.NewTextHandler(std.errOut, &slog.HandlerOptions{Level: g.level}))
	ws, err := workspaceDir(g)
	if err != nil {
		return nil, nil, failure(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, failure(err)
	}
	opts := []daemon.Option{daemon.WithLogger(logger), daemon.WithVersion(commandVersion()), daemon.WithCommand(exe)}
	if g.config != "" {
		abs, err := filepath.Abs(g.config)
		if err != nil {
			return nil, nil, failure(err)
		}
		opts = append(opts, daemon.WithConfigFile(abs))
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	rt, err := agentlsp.Dial(dctx, ws, opts...)
	if err != nil {
		return nil, nil, failure(err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := rt.Shutdown(sctx); err != nil {
			logger.Warn("detach", "err", err)
		}
	}
	return rt, stop, nil
}

// workspaceDir is --workspace, or the current directory.
func workspaceDir(g globalFlags) (string, error) {
	if g.workspace != "" {
		return g.workspace, nil
	}
	return os.Getwd()
}
