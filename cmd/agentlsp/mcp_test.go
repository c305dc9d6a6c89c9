package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
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
	c = &mcpClient{t: t, in: inW, lines: make(chan string)}
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
