package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/mcp"
)

// BenchmarkMCPHoverRawClient is BenchmarkMCPHover/stdio with a client that
// only writes the request's line and reads the answer's: what is left is
// agentlsp's side of an MCP call (its transport, the SDK's server, the
// tool) and the pipes, without an MCP client's own decoding. Its
// difference with BenchmarkMCPPingRawClient is the tool's cost over the
// protocol's.
func BenchmarkMCPHoverRawClient(b *testing.B) {
	rawClient(b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp","arguments":{"operation":"hover","filePath":"doc`+fakeExt+`","line":2,"character":3}}}`)
}

// BenchmarkMCPPingRawClient is an MCP ping from the same client.
func BenchmarkMCPPingRawClient(b *testing.B) {
	rawClient(b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`)
}

// rawClient initializes an MCP session over pipes to agentlsp's server,
// then sends format (with the call's id) and reads its answer b.N times.
func rawClient(b *testing.B, format string) {
	ws, _ := fakeWorkspace(b, 10)
	rt := startRuntime(b, ws, 0)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	// Serve lives until its input closes, below.
	go func() {
		served <- mcp.Serve(context.Background(), rt, mcp.NewStdioTransport(toServer, fromServer), "bench")
	}()
	defer func() {
		fromClient.Close()
		toClient.Close()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			b.Error("Serve did not return")
		}
	}()
	in := bufio.NewReaderSize(toClient, 64<<10)
	call := func(line string) string {
		if _, err := io.WriteString(fromClient, line+"\n"); err != nil {
			b.Fatal(err)
		}
		answer, err := in.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return answer
	}
	call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"v0"}}}`)
	if _, err := io.WriteString(fromClient, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	if a := call(fmt.Sprintf(format, 1)); strings.Contains(a, `"error"`) || strings.Contains(a, `"isError":true`) {
		b.Fatalf("answer: %s", a)
	}
	b.ReportAllocs()
	id := 1
	for b.Loop() {
		id++
		call(fmt.Sprintf(format, id))
	}
}
