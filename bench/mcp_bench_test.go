package bench

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/mcp"
)

// The MCP surface over the embedding API: the lsp tool's hover, through
// the official SDK's client and server on an in-memory transport (no
// process, no pipe), so that the difference with BenchmarkSessionHover is
// what the MCP layer adds: JSON-RPC, the SDK's dispatch and schema
// checks, the tool's position lookup and rendering.

// BenchmarkMCPHover is the lsp tool's hover through an in-memory MCP
// client.
func BenchmarkMCPHover(b *testing.B) {
	ws, _ := fakeWorkspace(b, 10)
	rt := startRuntime(b, ws, 0)
	st, ct := sdk.NewInMemoryTransports()
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
	args := map[string]any{"operation": "hover", "filePath": "doc" + fakeExt, "line": 2, "character": 3}
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
}
