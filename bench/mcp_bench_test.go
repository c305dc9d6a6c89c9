package bench

import (
	"context"
	"io"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/mcp"
)

// The MCP surface over the embedding API: the lsp tool's hover through the
// official SDK's client, against agentlsp's MCP server, so that the
// difference with BenchmarkSessionHover is what the MCP layer adds:
// JSON-RPC, the SDK's dispatch, the tool's argument decoding, position
// lookup and rendering. Two transports: "memory", the SDK's in-memory
// pair, and "stdio", agentlsp's own StdioTransport (what `agentlsp mcp`
// serves) over pipes to the SDK's IOTransport. BenchmarkMCPPing is the
// protocol's own round trip on the same transports: the floor under a tool.

// BenchmarkMCPHover is the lsp tool's hover through an MCP client.
func BenchmarkMCPHover(b *testing.B) {
	args := map[string]any{"operation": "hover", "filePath": "doc" + fakeExt, "line": 2, "character": 3}
	eachTransport(b, func(b *testing.B, cs *sdk.ClientSession) {
		hover := func() {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "lsp", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("hover = %+v, %v", res, err)
			}
		}
		hover()
		b.ReportAllocs()
		for b.Loop() {
			hover()
		}
	})
}

// BenchmarkMCPPing is an MCP ping: the SDK's client and server and the
// transport, no tool.
func BenchmarkMCPPing(b *testing.B) {
	eachTransport(b, func(b *testing.B, cs *sdk.ClientSession) {
		b.ReportAllocs()
		for b.Loop() {
			if err := cs.Ping(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// eachTransport runs f with a client connected to agentlsp's MCP server
// on a runtime over the fake, once per transport.
func eachTransport(b *testing.B, f func(*testing.B, *sdk.ClientSession)) {
	transports := []struct {
		name string
		pair func() (server, client sdk.Transport)
	}{
		{"memory", func() (sdk.Transport, sdk.Transport) {
			st, ct := sdk.NewInMemoryTransports()
			return st, ct
		}},
		{"stdio", func() (sdk.Transport, sdk.Transport) {
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			return mcp.NewStdioTransport(toServer, fromServer), &sdk.IOTransport{Reader: toClient, Writer: fromClient}
		}},
	}
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			ws, _ := fakeWorkspace(b, 10)
			rt := startRuntime(b, ws, 0)
			st, ct := tr.pair()
			served := make(chan error, 1)
			// Serve lives until the client closes, below.
			go func() { served <- mcp.Serve(context.Background(), rt, st, "bench") }()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				cs.Close()
				select {
				case <-served:
				case <-time.After(30 * time.Second):
					b.Error("Serve did not return")
				}
			}()
			f(b, cs)
		})
	}
}
