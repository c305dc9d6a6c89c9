package main

import (
	"strings"
	"testing"
)

// TestMCPLogsToClient: "agentlsp mcp" sends the runtime's warnings to a
// client that set the level with logging/setLevel, as notifications/message
// on stdout (nothing else but JSON-RPC there), and still to stderr.
func TestMCPLogsToClient(t *testing.T) {
	c, done, errOut := startMCP(t, "--workspace", t.TempDir())
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	caps, _ := c.await(1)["result"].(map[string]any)["capabilities"].(map[string]any)
	if _, ok := caps["logging"]; !ok {
		t.Errorf("capabilities = %v, want logging", caps)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}`)
	c.await(2)
	c.send(`this is not json`) // the transport rejects it with a warning
	for {
		_, msg := c.next()
		m, _ := msg.(map[string]any)
		if m["method"] != "notifications/message" {
			continue
		}
		p, _ := m["params"].(map[string]any)
		data, _ := p["data"].(map[string]any)
		if p["level"] != "warning" || data["msg"] != "mcp: rejected an invalid message" {
			t.Errorf("log notification %v, want the warning that a line was rejected", p)
		}
		break
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
	if logs := errOut.w.(*strings.Builder).String(); !strings.Contains(logs, "rejected an invalid message") {
		t.Errorf("stderr lacks the warning:\n%s", logs)
	}
}
