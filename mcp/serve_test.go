package mcp_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestServeEndsWithContext: Serve returns nil once its context ends, and
// the client sees the connection close.
func TestServeEndsWithContext(t *testing.T) {
	rt := start(t, "gonav", agentlsp.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	// Serve lives until cancel; joined below.
	go func() { served <- mcp.Serve(ctx, rt, st, "test") }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after cancel = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	waited := make(chan error, 1)
	// Ends when the client sees the connection close.
	go func() { waited <- cs.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("the client did not see the connection close")
	}
}

// TestNewServerSharedByClients: a server made by NewServer serves several
// clients at once, concurrently, with exact answers.
func TestNewServerSharedByClients(t *testing.T) {
	rt := start(t, "gonav", goplsConfig(t))
	srv := mcp.NewServer(rt, "test")
	var clients []*client
	for range 3 {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		clients = append(clients, &client{rt: rt, ws: rt.Workspace(), cs: cs})
	}
	ready(t, clients[0], "report.go")
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		// One call each, joined below.
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			res, err := clients[i%3].cs.CallTool(ctx, &sdk.CallToolParams{Name: "lsp",
				Arguments: mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.go", Line: 7, Symbol: "Total"}})
			if err != nil {
				t.Errorf("client %d: %v", i%3, err)
				return
			}
			want := "1 definition (gopls):\ntotal.go:4:6  func Total(shapes []Shape) float64 {\n"
			if text := res.Content[0].(*sdk.TextContent).Text; res.IsError || text != want {
				t.Errorf("client %d: definition = %q (error %v), want %q", i%3, text, res.IsError, want)
			}
		}()
	}
	wg.Wait()
}

// TestNothingOnStdout: the server writes nothing to the process's stdout
// (which an MCP stdio transport owns), not even logs, while serving calls
// against a real server. The test swaps os.Stdout, so it logs nothing
// itself until it has restored it.
func TestNothingOnStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	captured := make(chan []byte, 1)
	// Reads the pipe until it is closed below.
	go func() {
		b, _ := io.ReadAll(r)
		captured <- b
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		ws := testenv.CopyDir(t, filepath.Join("..", "test", "testdata", "gonav"))
		rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, NoWatch: true})
		if err != nil {
			return
		}
		defer rt.Shutdown(context.Background())
		st, ct := sdk.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		served := make(chan error, 1)
		// Serve lives until the client closes; joined below.
		go func() { served <- mcp.Serve(ctx, rt, st, "test") }()
		defer func() { <-served }()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			cancel()
			return
		}
		defer cs.Close()
		for _, args := range []any{
			mcp.DiagnosticsInput{Files: []string{"total.go"}},
			mcp.LSPInput{Operation: mcp.OpHover, FilePath: "total.go", Line: 4, Symbol: "Total"},
			mcp.LSPInput{Operation: mcp.OpHover, FilePath: "missing.go", Line: 4, Symbol: "Total"},
		} {
			tool := "lsp"
			if _, ok := args.(mcp.DiagnosticsInput); ok {
				tool = "diagnostics"
			}
			cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		}
	}()
	w.Close()
	if b := <-captured; len(b) > 0 {
		t.Errorf("stdout got %q, want nothing", b)
	}
}

// TestServeEndsAtEOF: over newline-delimited JSON streams, as with stdio,
// Serve returns nil when the client closes its end.
func TestServeEndsAtEOF(t *testing.T) {
	rt := start(t, "gonav", agentlsp.Config{})
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	// Serve lives until the client closes its end; joined below.
	go func() {
		served <- mcp.Serve(context.Background(), rt, &sdk.IOTransport{Reader: toServer, Writer: fromServer}, "test")
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(),
		&sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after the client closed = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the client closed")
	}
}

// TestServeAnswersCallsInFlightOnStop: when Serve's context ends (a
// signal) while a call waits on a hung server, the call is answered with a
// tool error saying the server is stopping, even when the answer takes a
// while to reach the connection after the tool returned: the connection
// closes only once the answer was written.
func TestServeAnswersCallsInFlightOnStop(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, fargs, env := testenv.FakeServer(t, "--hang-on", "textDocument/hover", "--record", record)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	rt := start(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	// Serve lives until cancel; joined below.
	slowAnswer := func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				time.Sleep(200 * time.Millisecond)
			}
			return res, err
		}
	}
	go func() { served <- mcp.Serve(ctx, rt, st, "test", mcp.WithMiddleware(slowAnswer)) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	answered := make(chan *sdk.CallToolResult, 1)
	failed := make(chan error, 1)
	// One call, hung until Serve stops; joined below.
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "lsp", Arguments: at("hover")})
		if err != nil {
			failed <- err
			return
		}
		answered <- res
	}()
	testenv.Eventually(t, 30*time.Second, "the hover call reached the server", func() bool {
		return slices.Contains(testenv.Methods(testenv.Records(t, record)), "textDocument/hover")
	})
	cancel()
	select {
	case res := <-answered:
		if text := resultText(t, res); !res.IsError || !strings.Contains(text, "shutting down") {
			t.Errorf("the call in flight was answered %q (error %v), want a tool error saying the server is shutting down", text, res.IsError)
		}
	case err := <-failed:
		t.Errorf("the call in flight got no answer: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight got no answer")
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after cancel = %v, want nil", err)
	}
}
