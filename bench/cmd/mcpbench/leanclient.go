package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// leanClient speaks MCP to `agentlsp mcp` with the JSON-RPC client the raw
// LSP side uses, framed by lines: a call costs it a line written, a line
// read and the answer's envelope decoded, as a call costs the raw client.
type leanClient struct {
	conn   *lspConn
	stdin  io.Closer
	exited chan error // cmd.Wait's result
}

// toolResult is the part of a tools/call result the checks read.
type toolResult struct {
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta map[string]any `json:"_meta"`
}

// startLean starts cmd and initializes an MCP session with the lean
// client. On error nothing is left running.
func startLean(ctx context.Context, cmd *exec.Cmd, stderr *os.File, root string, timeout time.Duration) (side *mcpSide, err error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		stderr.Close()
		return nil, fmt.Errorf("agentlsp mcp: %w", err)
	}
	lc := &leanClient{stdin: stdin, exited: make(chan error, 1)}
	// Waits for the process, which the side's close ends.
	go func() { lc.exited <- cmd.Wait() }()
	lc.conn = newLineConn(stdout, stdin, func(string, json.RawMessage) any { return struct{}{} }, func(string, json.RawMessage) {})
	side = &mcpSide{root: root, timeout: timeout, cmd: cmd, stderr: stderr, lean: lc}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("agentlsp mcp: %w (stderr: %s)", err, tail(stderr, 500)), side.closeLean())
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := lc.conn.Call(cctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "mcpbench-lean", "version": "1"},
	}); err != nil {
		return nil, err
	}
	return side, lc.conn.Notify("notifications/initialized", nil)
}

// callLean is call with the lean client: the time includes decoding the
// result's envelope, as the SDK client's includes its decoding.
func (m *mcpSide) callLean(ctx context.Context, start time.Time, tool string, args map[string]any) (*toolAnswer, time.Duration, error) {
	raw, err := m.lean.conn.Call(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
	var res toolResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	d := time.Since(start)
	if err != nil {
		return nil, d, err
	}
	a := &toolAnswer{structured: res.StructuredContent, isError: res.IsError, meta: res.Meta}
	for _, c := range res.Content {
		a.text = append(a.text, c.Text)
	}
	return a, d, nil
}

// closeLean closes agentlsp's stdin (it then exits), waits for it a
// while (m.grace, default 5 s), and kills whatever is left of its process
// tree.
func (m *mcpSide) closeLean() error {
	defer m.stderr.Close()
	m.lean.stdin.Close()
	err := waitExit(m.cmd, m.lean.exited, cmp.Or(m.grace, 5*time.Second))
	if err != nil && !isExitError(err) {
		return fmt.Errorf("agentlsp mcp: close: %w (stderr: %s)", err, tail(m.stderr, 500))
	}
	return nil
}
