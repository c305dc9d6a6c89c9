package mcp_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// logMessage is the params of a notifications/message.
type logMessage struct {
	Level  string         `json:"level"`
	Logger string         `json:"logger"`
	Data   map[string]any `json:"data"`
}

// TestLogsThroughMCP: the server declares logging; once the client sets
// the level to warning with logging/setLevel, the runtime's warnings (one
// from the stdio transport, which rejects a bad line, one logged directly)
// arrive as notifications/message, with their attributes, and records
// below the level and from before setLevel do not; stderr gets every
// record at its own level; and the process's stdout gets nothing, while
// the transport's output carries nothing but JSON-RPC 2.0.
func TestLogsThroughMCP(t *testing.T) {
	stderr := &testenv.Buffer{}
	stdout := captureStdout(t, func() { logsThroughMCP(t, stderr) })
	if len(stdout) > 0 {
		t.Errorf("stdout got %q, want nothing", stdout)
	}
	logs := stderr.String()
	for _, want := range []string{"before the level was set", "below the level", "the last warning"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
	if n := strings.Count(logs, "rejected an invalid message"); n != 2 {
		t.Errorf("stderr has %d rejections, want 2:\n%s", n, logs)
	}
}

// logsThroughMCP is TestLogsThroughMCP's conversation.
func logsThroughMCP(t *testing.T, stderr io.Writer) {
	logs := mcp.NewLogHandler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	t.Cleanup(logs.Close) // after the runtime's shutdown: cleanups run last first
	rt := start(t, "gonav", agentlsp.Config{Logger: slog.New(logs)})
	c := serveLines(t, rt, func(tr *mcp.StdioTransport) { tr.Logger = rt.System().Logger().With("component", "mcp") })
	log := rt.System().Logger()

	log.Warn("before the level was set")
	c.send(`this is not json`) // rejected with a warning, not for the client yet
	if m := c.next(); m["error"] == nil {
		t.Fatalf("a bad line answered %v, want an error", m)
	}
	c.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"warning"}}`)
	if m := c.next(); m["id"] != "lvl" || m["result"] == nil {
		t.Fatalf("setLevel answered %v", m)
	}
	c.send(`this is not json either`)
	var got []logMessage
	bad := 0
	// The rejection is logged on the transport's reader: the warnings below
	// are logged once it answered, so the order of the notifications is known.
	for bad == 0 {
		m := c.next()
		switch {
		case m["method"] == "notifications/message":
			got = append(got, decodeLog(t, m))
		case m["error"] != nil:
			bad++
		default:
			t.Fatalf("unexpected message %v", m)
		}
	}
	log.Info("below the level")
	log.Warn("the last warning", "server", "gopls")
	for len(got) < 2 || got[len(got)-1].Data["msg"] != "the last warning" {
		m := c.next()
		switch {
		case m["method"] == "notifications/message":
			got = append(got, decodeLog(t, m))
		case m["error"] != nil:
			bad++
		default:
			t.Fatalf("unexpected message %v", m)
		}
	}
	if len(got) != 2 || got[0].Data["msg"] != "mcp: rejected an invalid message" || got[0].Data["component"] != "mcp" ||
		got[1].Data["server"] != "gopls" {
		t.Errorf("log notifications = %+v, want the second rejection (component mcp), then the last warning (server gopls)", got)
	}
	for _, m := range got {
		if m.Level != "warning" || m.Logger != "agentlsp" {
			t.Errorf("log notification %+v, want level warning from logger agentlsp", m)
		}
	}
	if bad > 1 {
		t.Errorf("%d error answers, want 1 (the second bad line)", bad)
	}
}

// decodeLog decodes a notifications/message.
func decodeLog(t *testing.T, m map[string]any) logMessage {
	t.Helper()
	b, _ := json.Marshal(m["params"])
	var lm logMessage
	if err := json.Unmarshal(b, &lm); err != nil {
		t.Fatalf("notifications/message params %s: %v", b, err)
	}
	return lm
}

// captureStdout runs f with os.Stdout on a pipe and returns what was
// written to it. The test logs nothing itself until stdout is restored.
func captureStdout(t *testing.T, f func()) []byte {
	t.Helper()
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
		// Deferred, so that a failing f (runtime.Goexit) restores stdout
		// and ends the reader too.
		defer func() {
			os.Stdout = stdout
			w.Close()
		}()
		f()
	}()
	return <-captured
}

// TestLoggingCapability: the server declares the logging capability.
func TestLoggingCapability(t *testing.T) {
	c := connect(t, "gonav", agentlsp.Config{})
	if caps := c.cs.InitializeResult().Capabilities; caps.Logging == nil || caps.Tools == nil {
		t.Errorf("capabilities = %+v, want logging and tools", caps)
	}
}

// logs lists the notifications/message the client read, in order.
func (w *wire) logs(t *testing.T) []logMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []logMessage
	for _, msg := range w.msgs {
		if m, ok := msg.(*jsonrpc.Request); ok && m.Method == "notifications/message" {
			var lm logMessage
			if err := json.Unmarshal(m.Params, &lm); err != nil {
				t.Fatalf("notifications/message params %s: %v", m.Params, err)
			}
			out = append(out, lm)
		}
	}
	return out
}

// TestLogsOfACallGoToItsSession: two clients of one server asked for
// debug logs; the log of a failed call (with the call's context) reaches
// only the client that made it, and a record of the runtime reaches both.
func TestLogsOfACallGoToItsSession(t *testing.T) {
	logs := mcp.NewLogHandler(slog.DiscardHandler)
	t.Cleanup(logs.Close)
	rt := start(t, "gonav", agentlsp.Config{Logger: slog.New(logs)})
	srv := mcp.NewServer(rt, "test")
	caller, w1 := connectWire(t, srv)
	other, w2 := connectWire(t, srv)
	for _, cs := range []*sdk.ClientSession{caller, other} {
		if err := cs.SetLoggingLevel(t.Context(), &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := caller.CallTool(t.Context(), &sdk.CallToolParams{Name: "lsp", Arguments: mcp.LSPInput{Operation: mcp.OpHover}})
	if err != nil || !res.IsError {
		t.Fatalf("hover without a file = %+v, %v; want a tool error", res, err)
	}
	rt.System().Logger().Warn("for everyone")
	last := func(w *wire) func() bool {
		return func() bool {
			got := w.logs(t)
			return len(got) > 0 && got[len(got)-1].Data["msg"] == "for everyone"
		}
	}
	testenv.Eventually(t, callTimeout, "the caller gets the warning", last(w1))
	testenv.Eventually(t, callTimeout, "the other client gets the warning", last(w2))
	if !slices.ContainsFunc(w1.logs(t), toolError) {
		t.Errorf("the caller's logs %+v lack the tool error", w1.logs(t))
	}
	if slices.ContainsFunc(w2.logs(t), toolError) {
		t.Errorf("the other client's logs %+v have the caller's tool error", w2.logs(t))
	}
}

func toolError(m logMessage) bool { return m.Data["msg"] == "mcp: tool error" }
