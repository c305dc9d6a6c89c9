package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/mcp"
)

const mcpAbout = `
MCP serves agentlsp over the Model Context Protocol on stdin and stdout, with
two tools: lsp (navigation: definition, references, hover, symbols,
implementations, call hierarchy) and diagnostics (fresh diagnostics of
files, in the model format). Only protocol messages are written to stdout;
logs go to stderr, and to the client as MCP log messages at the level it
sets (logging/setLevel). While a tool call waits for a server that is
starting or indexing, a client that gave a progress token gets progress
notifications. It runs until the client disconnects or a signal.`

// version is the command's version, set with
// -ldflags "-X main.version=v1.2.3"; empty means the module's version.
var version string

// runMCP is the mcp subcommand.
func runMCP(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("mcp", "mcp [global flags]", mcpAbout)
	fs.sharedFlag()
	every := fs.Duration("stats", 0, "every `D`, write the process's goroutines and heap to stderr (for load tests; 0: never)")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("mcp", "unexpected argument %q: mcp takes no arguments", pos[0])
	}
	var logs *mcp.LogHandler
	rt, stop, err := startRuntime(ctx, fs.global, std, func(cfg *agentlsp.Config) {
		logs = mcp.NewLogHandler(cfg.Logger.Handler())
		cfg.Logger = slog.New(logs)
	})
	if logs != nil {
		// After the runtime's shutdown (deferred below, so run first),
		// whose logs still reach stderr.
		defer logs.Close()
	}
	if err != nil {
		return err
	}
	defer stop()
	defer logStats(std, *every)()
	return failure(mcp.Serve(ctx, rt, stdioTransport(rt, std), commandVersion()))
}

// logStats writes, every d, a line with the process's goroutines and heap
// to stderr, until the returned stop is called (d <= 0: never).
func logStats(std stdio, d time.Duration) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	log := slog.New(slog.NewTextHandler(std.errOut, nil))
	done := make(chan struct{})
	var wg sync.WaitGroup
	// Lives until stop; joined by it.
	wg.Go(func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				log.Info("process stats", "goroutines", runtime.NumGoroutine(), "heapMB", float64(m.HeapAlloc)/(1<<20))
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// stdioTransport speaks MCP on the command's stdin and stdout, in
// non-blocking mode when they are pipes or sockets (pollable). A line that
// is not valid JSON-RPC gets a JSON-RPC error on stdout, a warning in the
// logs (stderr, and the client if it asked for logs), and the server goes
// on.
func stdioTransport(rt *agentlsp.Runtime, std stdio) *mcp.StdioTransport {
	tr := mcp.NewStdioTransport(pollable(std.in, std.out))
	tr.Logger = rt.System().Logger().With("component", "mcp")
	return tr
}

// commandVersion is version, or the module version the binary was built
// from, or "devel".
func commandVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
