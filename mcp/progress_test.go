package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// wire is a client transport that records, in order, every message the
// client reads: what the server sent, as it arrived.
type wire struct {
	sdk.Transport
	mu   sync.Mutex
	msgs []jsonrpc.Message
}

func (w *wire) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wireConn{Connection: c, w: w}, nil
}

// wireConn records what Read returns.
type wireConn struct {
	sdk.Connection
	w *wire
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.w.mu.Lock()
		c.w.msgs = append(c.w.msgs, msg)
		c.w.mu.Unlock()
	}
	return msg, err
}

// progressEvent is a progress notification, or (Response) the answer to a
// request.
type progressEvent struct {
	Response bool
	sdk.ProgressNotificationParams
}

// events lists the progress notifications and answers the client read,
// in order.
func (w *wire) events(t *testing.T) []progressEvent {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []progressEvent
	for _, msg := range w.msgs {
		switch m := msg.(type) {
		case *jsonrpc.Response:
			out = append(out, progressEvent{Response: true})
		case *jsonrpc.Request:
			if m.Method != "notifications/progress" {
				continue
			}
			var e progressEvent
			if err := json.Unmarshal(m.Params, &e.ProgressNotificationParams); err != nil {
				t.Fatalf("progress notification %s: %v", m.Params, err)
			}
			out = append(out, e)
		}
	}
	return out
}

// connectWire connects a client that records what it reads to srv;
// cleanup closes both ends. The record starts after the initialization.
func connectWire(t *testing.T, srv *sdk.Server) (*sdk.ClientSession, *wire) {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	w := &wire{Transport: ct}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	w.mu.Lock()
	w.msgs = nil // the initialize answer
	w.mu.Unlock()
	return cs, w
}

// slowFake serves .go files with the fake language server run with flags.
func slowFake(t *testing.T, flags ...string) agentlsp.Config {
	cmd, fargs, env := testenv.FakeServer(t, flags...)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	return agentlsp.Config{Registry: config.RegistryOf(fake)}
}

// callDefinition asks for the definition of Total in total.go, with a
// progress token unless token is nil; the call must succeed.
func callDefinition(t *testing.T, cs *sdk.ClientSession, token any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: "lsp",
		Arguments: mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "total.go", Line: 4, Symbol: "Total"}}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if text := resultText(t, res); res.IsError || !strings.HasPrefix(text, "no definition found (fake") {
		t.Errorf("definition = %q (error %v), want no definition from fake", text, res.IsError)
	}
}

// checkProgress checks that events are progress notifications for token,
// at least one, with increasing progress and messages that contain every
// one of want (each in at least one message), followed by the answer and
// nothing after it. It returns the messages.
func checkProgress(t *testing.T, events []progressEvent, token any, want ...string) []string {
	t.Helper()
	last := len(events) - 1
	if last < 1 || !events[last].Response {
		t.Fatalf("events = %+v, want progress notifications, then the answer", events)
	}
	var msgs []string
	prev := 0.0
	for _, e := range events[:last] {
		if e.Response || e.ProgressToken != token || e.Progress <= prev || !strings.HasPrefix(e.Message, "waiting for fake") {
			t.Errorf("event %+v (after progress %v), want a notification for %v with more progress, waiting for fake", e, prev, token)
		}
		prev = e.Progress
		msgs = append(msgs, e.Message)
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("progress messages %q, want one to contain %q", msgs, w)
		}
	}
	return msgs
}

// TestProgressWhileStarting: a call that waits for a cold server that
// takes 1.5 s to initialize gets progress notifications for its token,
// saying the server is starting and how long the call has waited, before
// its answer; a client that gave no token, waiting for the same server in
// the same MCP server, gets none.
func TestProgressWhileStarting(t *testing.T) {
	rt := start(t, "gonav", slowFake(t, "--delay", "initialize=1500ms"))
	srv := mcp.NewServer(rt, "test")
	withToken, w1 := connectWire(t, srv)
	noToken, w2 := connectWire(t, srv)
	var wg sync.WaitGroup
	// The two calls, joined below.
	wg.Go(func() { callDefinition(t, withToken, "tok-1") })
	wg.Go(func() { callDefinition(t, noToken, nil) })
	wg.Wait()
	msgs := checkProgress(t, w1.events(t), "tok-1", "waiting for fake: starting (")
	t.Log(msgs)
	if !strings.HasSuffix(msgs[0], "ms)") && !strings.HasSuffix(msgs[0], "s)") {
		t.Errorf("progress message %q does not end with the elapsed time", msgs[0])
	}
	if events := w2.events(t); len(events) != 1 || !events[0].Response {
		t.Errorf("without a token: events %+v, want only the answer", events)
	}
}

// TestProgressWhileWorking: while a running server reports work-done
// progress ("indexing", for 5 s) and the call waits for its answer (2 s),
// the progress notifications say what the server does.
func TestProgressWhileWorking(t *testing.T) {
	rt := start(t, "gonav", slowFake(t, "--progress", "5s", "--delay", "textDocument/definition=2s"))
	cs, w := connectWire(t, mcp.NewServer(rt, "test"))
	callDefinition(t, cs, 7)
	t.Log(checkProgress(t, w.events(t), float64(7), "waiting for fake: indexing ("))
}

// TestNoProgressWhenFast: a call answered at once sends no progress.
func TestNoProgressWhenFast(t *testing.T) {
	rt := start(t, "gonav", slowFake(t))
	cs, w := connectWire(t, mcp.NewServer(rt, "test"))
	callDefinition(t, cs, "warm-up")
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		before := len(w.events(t))
		callDefinition(t, cs, "fast")
		events := w.events(t)[before:]
		if len(events) == 1 && events[0].Response {
			return
		}
		// A loaded machine can make even a warm call slow: try again.
	}
	t.Errorf("every warm call sent progress notifications")
}
