package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// callTimeout bounds a tool call in the tests: real servers' first
// answers can take seconds.
const callTimeout = 2 * time.Minute

// client is a real MCP client connected over in-memory transports to a
// server that Serve runs for a runtime on a copy of a testdata project.
type client struct {
	rt *agentlsp.Runtime
	ws string
	cs *sdk.ClientSession
}

// connect starts a runtime on a copy of test/testdata/<project> (or with
// cfg's registry) and an MCP client; cleanup closes the client, waits for
// Serve to return and shuts the runtime down.
func connect(t *testing.T, project string, cfg agentlsp.Config, opts ...mcp.Option) *client {
	t.Helper()
	rt := start(t, project, cfg)
	st, ct := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	// Serve lives until the client closes; the cleanup below joins it.
	go func() { served <- mcp.Serve(context.Background(), rt, st, "test", opts...) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("client Close: %v", err)
		}
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve = %v, want nil after the client closed", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Serve did not return after the client closed")
		}
	})
	return &client{rt: rt, ws: rt.Workspace(), cs: cs}
}

// start starts a runtime on a copy of test/testdata/<project>, shut down
// by the test's cleanup.
func start(t *testing.T, project string, cfg agentlsp.Config) *agentlsp.Runtime {
	t.Helper()
	cfg.Workspace = testenv.CopyDir(t, filepath.Join("..", "test", "testdata", project))
	cfg.NoWatch = true
	if cfg.DiagnosticsTimeout == 0 {
		// Real servers' first diagnostics can take seconds on a loaded machine.
		cfg.DiagnosticsTimeout = time.Minute
	}
	rt, err := agentlsp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return rt
}

// call calls a tool and returns its result; a protocol error fails t.
func (c *client) call(t *testing.T, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %+v): protocol error %v", tool, args, err)
	}
	return res
}

// lsp calls the lsp tool, which must succeed, and returns its structured
// and text answers.
func (c *client) lsp(t *testing.T, in mcp.LSPInput) (mcp.LSPOutput, string) {
	t.Helper()
	var out mcp.LSPOutput
	text := c.ok(t, "lsp", in, &out)
	return out, text
}

// ok calls a tool that must succeed and decodes its structured content.
func (c *client) ok(t *testing.T, tool string, args, out any) string {
	t.Helper()
	res := c.call(t, tool, args)
	text := resultText(t, res)
	if res.IsError {
		t.Fatalf("%s(%+v) failed: %s", tool, args, text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s(%+v): structured content %s: %v", tool, args, b, err)
	}
	return text
}

// resultText is the text content of a result.
func resultText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d contents, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}
