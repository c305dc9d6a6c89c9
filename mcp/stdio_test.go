package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// lineClient speaks raw lines to Serve over a StdioTransport on pipes.
type lineClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string // every line Serve wrote; closed at the end of its output
}

// serveLines runs Serve for rt, with opts, over a StdioTransport (changed
// by tweak, if not nil) on pipes, and initializes the session. Cleanup
// closes the input and checks that Serve returns nil.
func serveLines(t *testing.T, rt *agentlsp.Runtime, tweak func(*mcp.StdioTransport), opts ...mcp.Option) *lineClient {
	t.Helper()
	c := serveUninitialized(t, rt, tweak, opts...)
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if res := c.next(); res["id"] != "init" || res["result"] == nil {
		t.Fatalf("initialize answered %v", res)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// serveUninitialized is serveLines before the client's initialize.
func serveUninitialized(t *testing.T, rt *agentlsp.Runtime, tweak func(*mcp.StdioTransport), opts ...mcp.Option) *lineClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr := mcp.NewStdioTransport(inR, outW)
	if tweak != nil {
		tweak(tr)
	}
	served := make(chan error, 1)
	// Serve lives until the input closes (cleanup below); joined there.
	go func() {
		served <- mcp.Serve(context.Background(), rt, tr, "test", opts...)
		outW.Close()
	}()
	// Buffered: a test may send many lines before it reads their answers,
	// and a pipe does not buffer.
	c := &lineClient{t: t, in: inW, lines: make(chan string, 1024)}
	// The reader lives until Serve closes its output.
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range c.lines {
		}
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve = %v, want nil after the input closed", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Serve did not return after its input closed")
		}
	})
	return c
}

// TestCallBeforeInitializeIsAnInvalidRequest: a call before the client's
// initialize is refused with JSON-RPC's invalid request (-32600; SDK
// v1.6.0 gives code 0), and the session goes on.
func TestCallBeforeInitializeIsAnInvalidRequest(t *testing.T) {
	c := serveUninitialized(t, start(t, "gonav", fakeConfig(t, 0)), nil)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	res := c.next()
	e, _ := res["error"].(map[string]any)
	if res["id"] != float64(1) || e["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(e["message"]), "initialization") {
		t.Errorf("tools/list before initialize answered %v; want error -32600 saying why", res)
	}
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if res := c.next(); res["id"] != "init" || res["result"] == nil {
		t.Fatalf("initialize answered %v", res)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.toolsList(t, 2)
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write %.80q: %v", line, err)
	}
}

// nextRaw returns the next line written, which must be JSON-RPC 2.0.
func (c *lineClient) nextRaw() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the output ended: the server stopped")
		}
		checkJSONRPC(c.t, line)
		return line
	case <-time.After(callTimeout):
		c.t.Fatal("no answer")
		return ""
	}
}

// rest returns every answer written until the output ends, by id; each
// must be a JSON-RPC object.
func (c *lineClient) rest() map[any]map[string]any {
	c.t.Helper()
	out := map[any]map[string]any{}
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return out
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil {
				c.t.Fatalf("answer %s is not an object", line)
			}
			if id, ok := m["id"]; ok {
				out[id] = m
			}
		case <-time.After(callTimeout):
			c.t.Fatal("the output did not end")
		}
	}
}

// next returns the next line written, which must be a JSON-RPC object.
func (c *lineClient) next() map[string]any {
	c.t.Helper()
	var m map[string]any
	if line := c.nextRaw(); json.Unmarshal([]byte(line), &m) != nil {
		c.t.Fatalf("answer %s is not an object", line)
	}
	return m
}

// checkJSONRPC fails t unless line is a JSON-RPC 2.0 message (an id or a
// method, exactly one of result and error for an answer) or a non-empty
// array of them.
func checkJSONRPC(t *testing.T, line string) {
	t.Helper()
	var batch []map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &batch) == nil && len(batch) > 0 {
		for _, m := range batch {
			checkMessage(t, line, m)
		}
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("output line %.200q is not a JSON-RPC message: %v", line, err)
	}
	checkMessage(t, line, m)
}

func checkMessage(t *testing.T, line string, m map[string]json.RawMessage) {
	t.Helper()
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	answer := hasID && !hasMethod && hasResult != hasError
	if string(m["jsonrpc"]) != `"2.0"` || !(answer || hasMethod) {
		t.Fatalf("output line %.200q is not a JSON-RPC 2.0 message", line)
	}
}

// withoutMessages returns the answer line as a value, each error's message
// (which must be a non-empty string) removed.
func withoutMessages(t *testing.T, line string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	answers, ok := v.([]any)
	if !ok {
		answers = []any{v}
	}
	for _, a := range answers {
		e, _ := a.(map[string]any)["error"].(map[string]any)
		if msg, _ := e["message"].(string); msg == "" {
			t.Errorf("answer %s: an error without a message", line)
		}
		delete(e, "message")
	}
	return v
}

// badLines are invalid lines and their answers (without the messages);
// "" means no answer.
var badLines = []struct{ line, want string }{
	{`this is not json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
	{`{"jsonrpc":"2.0","id":12,"method":"tools/list"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
	{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
	{"\xff\xfe{}", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`},
	{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`null`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`42`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`"tools/list"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"id":3,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600}}`},
	{`{"jsonrpc":"1.0","id":"a","method":"tools/list"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600}}`},
	{`{"jsonrpc":2,"id":4,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":[5],"method":"tools/list"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":1e300,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1e300,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":7,"method":5}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":8,"method":""}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":"x"}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":10}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":11,"error":"boom"}`, `{"jsonrpc":"2.0","id":11,"error":{"code":-32600}}`},
	{`{"jsonrpc":"2.0","id":13,"result":1,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","id":13,"error":{"code":-32600}}`},
	{`[{"jsonrpc":"2.0","id":20,"method":"tools/list"},{"jsonrpc":"2.0","id":"21","method":"tools/list"}]`,
		`[{"jsonrpc":"2.0","id":20,"error":{"code":-32600}},{"jsonrpc":"2.0","id":"21","error":{"code":-32600}}]`},
	{`[{"jsonrpc":"2.0","method":"notifications/initialized"},5,[],{"id":22,"method":"x"}]`,
		`[{"jsonrpc":"2.0","id":null,"error":{"code":-32600}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600}},{"jsonrpc":"2.0","id":22,"error":{"code":-32600}}]`},
	{`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, ``},
	{`{"jsonrpc":"2.0","id":999,"result":{}}`, ``}, // an answer to nothing the server asked
	// Valid JSON-RPC the MCP server cannot take (the SDK before v1.8.0 gave both code 0).
	{`{"jsonrpc":"2.0","id":30,"method":"no/such/method","params":{}}`, `{"jsonrpc":"2.0","id":30,"error":{"code":-32601}}`},
	{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":5}}`, `{"jsonrpc":"2.0","id":31,"error":{"code":-32602}}`},
	{`{"jsonrpc":"2.0","id":32,"method":"tools/list","params":{"cursor":7}}`, `{"jsonrpc":"2.0","id":32,"error":{"code":-32602}}`},
	{`   `, ``},
	{``, ``},
}

// TestStdioAnswersInvalidLines: every invalid line gets its JSON-RPC error
// (with the id when it can be read), every valid request between them is
// answered, and the server goes on serving.
func TestStdioAnswersInvalidLines(t *testing.T) {
	c := serveLines(t, start(t, "gonav", fakeConfig(t, 0)), nil)
	for i, bad := range badLines {
		c.send(bad.line)
		if bad.want != "" {
			got := c.nextRaw()
			var want any
			json.Unmarshal([]byte(bad.want), &want)
			if diff := cmp.Diff(want, withoutMessages(t, got)); diff != "" {
				t.Errorf("answer to %.80q (-want +got):\n%s\n(line %s)", bad.line, diff, got)
			}
		}
		// The next line's answer comes next: nothing else was written.
		if i%2 == 0 {
			c.toolsList(t, 100+i)
		} else {
			c.definition(t, 100+i)
		}
	}
}

// toolsList asks tools/list with id and checks the answer names both tools.
func (c *lineClient) toolsList(t *testing.T, id int) {
	t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
	res := c.next()
	tools, _ := res["result"].(map[string]any)["tools"].([]any)
	if res["id"] != float64(id) || len(tools) != 2 {
		t.Fatalf("tools/list %d answered %v", id, res)
	}
}

// definition calls the lsp tool (the fake server answers) with id.
func (c *lineClient) definition(t *testing.T, id int) {
	t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp","arguments":`+
		`{"operation":"goToDefinition","filePath":"total.go","line":4,"symbol":"Total"}}}`, id))
	res := c.next()
	b, _ := json.Marshal(res["result"])
	if res["id"] != float64(id) || !strings.Contains(string(b), "no definition found (fake)") {
		t.Fatalf("tools/call %d answered %v", id, res)
	}
}

// TestStdioCallInFlightSurvivesBadLines: invalid lines while a call waits
// on the language server neither end the session nor lose the call.
func TestStdioCallInFlightSurvivesBadLines(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t, "--delay", "textDocument/hover=1s")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := serveLines(t, start(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)}), nil)
	c.send(`{"jsonrpc":"2.0","id":"hover","method":"tools/call","params":{"name":"lsp","arguments":` +
		`{"operation":"hover","filePath":"total.go","line":4,"symbol":"Total"}}}`)
	var answers []string // the error answers due, in order
	for _, bad := range badLines {
		c.send(bad.line)
		if bad.want != "" {
			answers = append(answers, bad.want)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	results := map[any]string{"hover": "fake hover", "list": `"name":"diagnostics"`}
	for len(results) > 0 || len(answers) > 0 {
		line := c.nextRaw()
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["error"] != nil {
			// The SDK answers calls concurrently (its answers to lines 31
			// and 32 come in either order): each error answer must be one
			// of those due, once.
			got := withoutMessages(t, line)
			j := slices.IndexFunc(answers, func(a string) bool {
				var want any
				json.Unmarshal([]byte(a), &want)
				return cmp.Equal(want, got)
			})
			if j < 0 {
				t.Fatalf("unexpected error answer %s (due: %v)", line, answers)
			}
			answers = slices.Delete(answers, j, j+1)
			continue
		}
		b, _ := json.Marshal(m["result"])
		if want, ok := results[m["id"]]; !ok || !strings.Contains(string(b), want) {
			t.Fatalf("unexpected answer %s", line)
		}
		delete(results, m["id"])
	}
}

// TestStdioAnswersEveryRequestBeforeEOF: the requests read before the
// input ends are all answered before Serve returns: those the server
// answers at once (ping, tools/list) and a call that waits a second on
// its language server, with its real answer. Before, the SDK's reader
// returned at the end of the input and the SDK wrote no answer after
// that: a client that wrote its requests and closed its end got none
// but the ones answered before the reader reached the end.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t, "--delay", "textDocument/hover=1s")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := serveLines(t, start(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)}), nil)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lsp","arguments":` +
		`{"operation":"hover","filePath":"total.go","line":4,"symbol":"Total"}}}`)
	c.in.Close()
	got := c.rest()
	for id, want := range map[float64]string{1: `{}`, 2: `"name":"diagnostics"`, 3: "fake hover"} {
		b, _ := json.Marshal(got[id]["result"])
		if got[id] == nil || !strings.Contains(string(b), want) || strings.Contains(string(b), `"isError":true`) {
			t.Errorf("request %v answered %v, want a result with %s", id, got[id], want)
		}
	}
}

// TestStdioAnswersAHungCallAtEOF: a call still waiting on its language
// server when the input has ended for the grace the calls in flight get
// (100 ms here) is answered with a tool error saying the server is
// shutting down, and Serve returns.
func TestStdioAnswersAHungCallAtEOF(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t, "--hang-on", "textDocument/hover")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := serveLines(t, start(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)}), nil,
		mcp.WithInputEndGrace(100*time.Millisecond))
	c.send(`{"jsonrpc":"2.0","id":"hover","method":"tools/call","params":{"name":"lsp","arguments":` +
		`{"operation":"hover","filePath":"total.go","line":4,"symbol":"Total"}}}`)
	c.in.Close()
	res := c.rest()["hover"]
	b, _ := json.Marshal(res["result"])
	if !strings.Contains(string(b), `"isError":true`) || !strings.Contains(string(b), "shutting down") {
		t.Errorf("the hung call was answered %v, want a tool error saying the server is shutting down", res)
	}
}
