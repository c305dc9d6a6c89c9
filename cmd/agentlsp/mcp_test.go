package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// mcpClient talks JSON-RPC to run("mcp") over pipes.
type mcpClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string // every line the command wrote on stdout; closed at EOF
	seen  []string
}

func (c *mcpClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatalf("write %s: %v", msg, err)
	}
}

// await returns the response with the given id, skipping notifications.
func (c *mcpClient) await(id int) map[string]any {
	c.t.Helper()
	for line := range c.lines {
		c.seen = append(c.seen, line)
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			c.t.Fatalf("stdout line is not JSON: %q", line)
		}
		if got, ok := msg["id"].(float64); ok && int(got) == id {
			return msg
		}
	}
	c.t.Fatalf("stdout ended before the response %d", id)
	return nil
}

// startMCP runs "agentlsp mcp args..." over pipes until the test closes
// the client's in. done receives run's error; errOut holds stderr.
func startMCP(t *testing.T, args ...string) (c *mcpClient, done <-chan error, errOut *lockedWriter) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errOut = &lockedWriter{w: new(strings.Builder)}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	result := make(chan error, 1)
	// The command runs until the test closes its stdin (or ctx ends).
	go func() {
		result <- run(ctx, append([]string{"mcp"}, args...), inR, outW, errOut)
		outW.Close()
	}()
	// Buffered: a test may send lines before it reads what they caused,
	// and a pipe does not buffer.
	c = &mcpClient{t: t, in: inW, lines: make(chan string, 256)}
	// The reader lives until the command closes its stdout.
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	// On failure too: end the command and wait until its stdout closes.
	t.Cleanup(func() {
		inW.Close()
		cancel()
		for range c.lines {
		}
	})
	return c, result, errOut
}

func TestMCPServesOverStdio(t *testing.T) {
	ws := goWorkspace(t, map[string]string{"main.go": brokenMain(t)})
	// gopls may take more than its default 3s on a loaded machine.
	cfg := writeFile(t, t.TempDir(), "agentlsp.json", `{"servers": {"gopls": {"diagnosticsTimeout": "60s"}}}`)
	c, done, errOut := startMCP(t, "--workspace", ws, "--config", cfg, "--log-level", "debug")

	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if info, _ := c.await(1)["result"].(map[string]any)["serverInfo"].(map[string]any); info["name"] != "agentlsp" {
		t.Errorf("serverInfo = %v, want agentlsp", info)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"diagnostics","arguments":{"files":["main.go"]}}}`)
	res, _ := json.Marshal(c.await(2)["result"])
	if want := "ERROR [11:23] undefined: agent (compiler/UndeclaredName)"; !strings.Contains(string(res), want) {
		t.Errorf("diagnostics result %s lacks %q", res, want)
	}
	c.in.Close()
	for line := range c.lines {
		c.seen = append(c.seen, line)
	}
	if err := <-done; exitCode(err) != exitOK {
		t.Errorf("mcp: exit %d (%v), want 0", exitCode(err), err)
	}
	for _, line := range c.seen {
		var msg struct{ JSONRPC string }
		if json.Unmarshal([]byte(line), &msg) != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout has a line that is not JSON-RPC: %q", line)
		}
	}
	errOut.mu.Lock()
	defer errOut.mu.Unlock()
	if logs := errOut.w.(*strings.Builder).String(); !strings.Contains(logs, "level=INFO") {
		t.Errorf("stderr has no logs:\n%s", logs)
	}
}

// next returns the next line on stdout, decoded.
func (c *mcpClient) next() (line string, msg any) {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("stdout ended: the server stopped")
		}
		c.seen = append(c.seen, line)
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			c.t.Fatalf("stdout line is not JSON: %q", line)
		}
		return line, msg
	case <-time.After(runTimeout):
		c.t.Fatal("no answer on stdout")
		return "", nil
	}
}

// TestMCPSurvivesBadLines: lines on stdin that are not valid JSON-RPC 2.0
// get JSON-RPC errors (-32700 or -32600, with the id when it can be read)
// and a warning on stderr; a call in flight and every later call are
// answered; stdout carries nothing but JSON-RPC; the command exits 0 when
// stdin closes.
func TestMCPSurvivesBadLines(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "fine\n")
	cfg := fakeConfig(t, ws, "--delay", "textDocument/hover=1s")
	c, done, errOut := startMCP(t, "--workspace", ws, "--config", cfg)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	c.await(1)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// In flight while the bad lines arrive: the fake answers hover after 1s.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lsp","arguments":{"operation":"hover","filePath":"a.fk","line":1,"character":1}}}`)
	answered := map[float64]string{}
	bad := []struct {
		line string
		want string // the error answers as (id, code) pairs
	}{
		{`this is not json`, "<nil> -32700"},
		{`[]`, "<nil> -32600"},
		{`null`, "<nil> -32600"},
		{`{"id":3,"method":"tools/list"}`, "3 -32600"},
		{`{"jsonrpc":"1.0","id":"x","method":"tools/list"}`, "x -32600"},
		{`[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, "4 -32600, 5 -32600"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "<nil> -32600"},
		{`{"jsonrpc":"2.0","id":[6],"method":"tools/list"}`, "<nil> -32600"},
		{`{"jsonrpc":"2.0","id":false,"method":"tools/list"}`, "<nil> -32600"},
	}
	for i, b := range bad {
		c.send(b.line)
		if got := c.nextError(answered); got != b.want {
			t.Errorf("answer to %s: %s, want %s", b.line, got, b.want)
		}
		id := 10 + i
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		for answered[float64(id)] == "" {
			c.nextResult(answered)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"diagnostics","arguments":{"files":["a.fk"]}}}`)
	for answered[2] == "" || answered[30] == "" {
		c.nextResult(answered)
	}
	if !strings.Contains(answered[2], "fake hover") || !strings.Contains(answered[30], `a.fk`) {
		t.Errorf("hover answered %s\ndiagnostics answered %s", answered[2], answered[30])
	}
	for i := range bad {
		if tools := answered[float64(10+i)]; !strings.Contains(tools, `"name":"diagnostics"`) {
			t.Errorf("tools/list %d answered %s", 10+i, tools)
		}
	}

	c.in.Close()
	for line := range c.lines {
		c.seen = append(c.seen, line)
	}
	if err := <-done; exitCode(err) != exitOK {
		t.Errorf("mcp: exit %d (%v), want 0", exitCode(err), err)
	}
	checkOnlyJSONRPC(t, c.seen)
	errOut.mu.Lock()
	defer errOut.mu.Unlock()
	if logs := errOut.w.(*strings.Builder).String(); strings.Count(logs, "rejected an invalid message") != len(bad) {
		t.Errorf("stderr has not one warning per bad line:\n%s", logs)
	}
}

// nextError reads stdout until an error answer (or a batch of them) and
// returns it as "id code" pairs; the results read on the way are kept in
// answered by id.
func (c *mcpClient) nextError(answered map[float64]string) string {
	c.t.Helper()
	for {
		if e := c.nextAnswer(answered); e != "" {
			return e
		}
	}
}

// nextResult reads one answer, which must be a result, into answered.
func (c *mcpClient) nextResult(answered map[float64]string) {
	c.t.Helper()
	if e := c.nextAnswer(answered); e != "" {
		c.t.Fatalf("unexpected error answer %s", e)
	}
}

// nextAnswer reads one line of stdout: a result, kept in answered by id
// (and "" returned), or an error answer or a batch of them, returned as
// "id code" pairs.
func (c *mcpClient) nextAnswer(answered map[float64]string) string {
	c.t.Helper()
	line, msg := c.next()
	answers, batch := msg.([]any)
	if !batch {
		answers = []any{msg}
	}
	if m, _ := answers[0].(map[string]any); m["error"] == nil {
		id, _ := m["id"].(float64)
		answered[id] = line
		return ""
	}
	var pairs []string
	for _, a := range answers {
		m, _ := a.(map[string]any)
		e, _ := m["error"].(map[string]any)
		pairs = append(pairs, fmt.Sprint(m["id"], " ", e["code"]))
	}
	return strings.Join(pairs, ", ")
}

// checkOnlyJSONRPC fails t for every stdout line that is not a JSON-RPC
// 2.0 message (or a batch of them).
func checkOnlyJSONRPC(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		var batch []json.RawMessage
		if json.Unmarshal([]byte(line), &batch) != nil {
			batch = []json.RawMessage{json.RawMessage(line)}
		}
		for _, raw := range batch {
			var msg map[string]json.RawMessage
			if json.Unmarshal(raw, &msg) != nil || string(msg["jsonrpc"]) != `"2.0"` {
				t.Errorf("stdout has a line that is not JSON-RPC 2.0: %q", line)
				continue
			}
			_, hasID := msg["id"]
			_, hasMethod := msg["method"]
			_, hasResult := msg["result"]
			_, hasError := msg["error"]
			if !hasMethod && !(hasID && hasResult != hasError) {
				t.Errorf("stdout has a line that is neither a request nor an answer: %q", line)
			}
		}
	}
}
