package main

import (
	"context"
	"io"
	"os"
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/mcp"
)

const mcpAbout = `
MCP serves agentlsp over the Model Context Protocol on stdin and stdout, with
two tools: lsp (navigation: definition, references, hover, symbols,
implementations, call hierarchy) and diagnostics (fresh diagnostics of
files, in the model format). Only protocol messages are written to stdout;
logs go to stderr. It runs until the client disconnects or a signal.`

// version is the command's version, set with
// -ldflags "-X main.version=v1.2.3"; empty means the module's version.
var version string

// runMCP is the mcp subcommand.
func runMCP(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("mcp", "mcp [global flags]", mcpAbout)
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("mcp", "unexpected argument %q: mcp takes no arguments", pos[0])
	}
	rt, stop, err := startRuntime(ctx, fs.global, std, nil)
	if err != nil {
		return err
	}
	defer stop()
	return failure(mcp.Serve(ctx, rt, transport(std), commandVersion()))
}

// transport is the stdio transport, or for tests that pass their own
// streams, a transport over those.
func transport(std stdio) sdk.Transport {
	if std.in == io.Reader(os.Stdin) && std.out == io.Writer(os.Stdout) {
		return &sdk.StdioTransport{}
	}
	return &sdk.IOTransport{Reader: io.NopCloser(std.in), Writer: nopWriteCloser{std.out}}
}

// nopWriteCloser is a writer whose Close does nothing: the caller owns it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

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
