package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/mcp"
)

// The MCP side: `agentlsp mcp --workspace ROOT` as a child process, spoken
// to over stdio with the official SDK's client or, with --client lean, a
// client that only frames lines and decodes the answer's envelope (see
// leanclient.go): the SDK's client decodes each message with its own
// allocating decoder, a cost of the client, not of agentlsp, which the
// lean client leaves out as the raw LSP client does. Answers are read from the
// tools' structured content; the types below are the part of the tools'
// output schemas (mcp/lsp.go, mcp/diagnostics.go) the checks read, decoded
// from JSON so that this client depends on the wire format only.

// lspAnswer is the lsp tool's structured answer, in part.
type lspAnswer struct {
	Locations []loc `json:"locations"`
	Hover     *struct {
		Text string `json:"text"`
	} `json:"hover"`
	Symbols []json.RawMessage `json:"symbols"`
	Items   []json.RawMessage `json:"items"`
	Calls   []json.RawMessage `json:"calls"`
	Errors  []string          `json:"errors"`
}

// diagAnswer is the diagnostics tool's structured answer, in part.
type diagAnswer struct {
	Files []struct {
		Path        string `json:"path"`
		Status      string `json:"status"`
		Detail      string `json:"detail"`
		Diagnostics []struct {
			Severity string `json:"severity"`
			Line     int    `json:"line"`
			Message  string `json:"message"`
		} `json:"diagnostics"`
	} `json:"files"`
}

// mcpSide is one agentlsp mcp process and its client session.
type mcpSide struct {
	root    string
	timeout time.Duration // of one call
	cmd     *exec.Cmd
	stderr  *os.File
	session *sdk.ClientSession // the SDK's client; nil with the lean one
	lean    *leanClient        // the lean client; nil with the SDK's
	grace   time.Duration      // lean: how long close waits for an exit (0: 5 s)
	// server is the language servers' own time of the last lsp call, as
	// agentlsp reports it in the answer's _meta (mcp.ServerTimeMeta).
	server time.Duration
}

// startMCP starts `agentlsp mcp` on root with the given configuration and
// extra args, and connects to it. On error nothing is left running.
func startMCP(ctx context.Context, bin, root, config, tmp string, timeout time.Duration, extra []string, lean bool) (*mcpSide, error) {
	args := append([]string{"mcp", "--workspace", root, "--config", config}, extra...)
	cmd, stderr, err := command(tmp, "agentlsp-mcp", bin, args...)
	if err != nil {
		return nil, err
	}
	cmd.Dir = root
	if lean {
		return startLean(ctx, cmd, stderr, root, timeout)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	session, err := client.Connect(cctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		if cmd.Process != nil {
			killAll(descendants(cmd.Process.Pid))
			_ = cmd.Wait()
		}
		defer stderr.Close()
		return nil, fmt.Errorf("agentlsp mcp: %w (stderr: %s)", err, tail(stderr, 500))
	}
	return &mcpSide{root: root, timeout: timeout, cmd: cmd, stderr: stderr, session: session}, nil
}

// close ends the session (the SDK closes agentlsp's stdin, waits, then
// signals it) and kills whatever is left of its process tree.
func (m *mcpSide) close() error {
	if m.lean != nil {
		return m.closeLean()
	}
	tree := descendants(m.cmd.Process.Pid)
	err := m.session.Close()
	killAll(tree)
	defer m.stderr.Close()
	if err != nil && !isExitError(err) {
		return fmt.Errorf("agentlsp mcp: close: %w (stderr: %s)", err, tail(m.stderr, 500))
	}
	return nil
}

// toolAnswer is the part of a tools/call result the checks read, from
// either client.
type toolAnswer struct {
	structured json.RawMessage
	isError    bool
	text       []string // the text contents
	meta       map[string]any
}

// call calls a tool and returns its structured content as JSON and the
// time since start when the client had the answer (re-encoding the
// content for the checks is not timed). It keeps the answer's server time
// (m.server).
func (m *mcpSide) call(ctx context.Context, start time.Time, tool string, args map[string]any) (json.RawMessage, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	call := m.callSDK
	if m.lean != nil {
		call = m.callLean
	}
	a, d, err := call(ctx, start, tool, args)
	switch {
	case err != nil:
		return nil, d, err
	case a.isError:
		return nil, d, fmt.Errorf("%s: tool error: %s", tool, strings.Join(a.text, " "))
	}
	m.server = 0
	if ms, ok := a.meta[mcp.ServerTimeMeta].(float64); ok {
		m.server = time.Duration(ms * float64(time.Millisecond))
	}
	return a.structured, d, nil
}

// callSDK is call with the SDK's client: the time ends when it returns.
func (m *mcpSide) callSDK(ctx context.Context, start time.Time, tool string, args map[string]any) (*toolAnswer, time.Duration, error) {
	res, err := m.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		return nil, d, err
	}
	a := &toolAnswer{isError: res.IsError, meta: res.Meta}
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			a.text = append(a.text, t.Text)
		}
	}
	a.structured, err = json.Marshal(res.StructuredContent)
	return a, d, err
}

// ping is the protocol's own round trip.
func (m *mcpSide) ping(ctx context.Context) error {
	if m.lean != nil {
		_, err := m.lean.conn.Call(ctx, "ping", nil)
		return err
	}
	return m.session.Ping(ctx, nil)
}

// lspArgs are the lsp tool's arguments for op.
func lspArgs(op string, t target) map[string]any {
	switch op {
	case "workspaceSymbol":
		return map[string]any{"operation": op, "query": t.Query}
	case "documentSymbol":
		return map[string]any{"operation": op, "filePath": t.Call.Path}
	case "goToImplementation":
		return map[string]any{"operation": op, "filePath": t.Impl.Path, "line": t.Impl.Line, "character": t.Impl.Column}
	}
	return map[string]any{"operation": op, "filePath": t.Call.Path, "line": t.Call.Line, "character": t.Call.Column}
}

// do runs one operation through the lsp tool and returns the round-trip
// time; the error is a failed call or, wrapping ErrWrong, an answer the
// check refused.
func (m *mcpSide) do(ctx context.Context, op string, t target) (time.Duration, error) {
	args := lspArgs(op, t)
	raw, d, err := m.call(ctx, time.Now(), "lsp", args)
	if err != nil {
		return d, err
	}
	var a lspAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return d, err
	}
	return d, checkLSP(op, a, t)
}

// checkLSP accepts an answer with the operation's field non-empty; for
// goToDefinition, one naming t.Def.
func checkLSP(op string, a lspAnswer, t target) error {
	var n int
	switch op {
	case "goToDefinition":
		for _, l := range a.Locations {
			if l == t.Def {
				return nil
			}
		}
		return fmt.Errorf("%w: goToDefinition: %v, want %s (errors %v)", ErrWrong, a.Locations, t.Def, a.Errors)
	case "findReferences", "goToImplementation":
		n = len(a.Locations)
	case "hover":
		if a.Hover != nil && a.Hover.Text != "" {
			n = 1
		}
	case "documentSymbol", "workspaceSymbol":
		n = len(a.Symbols)
	case "prepareCallHierarchy":
		n = len(a.Items)
	case "incomingCalls", "outgoingCalls":
		n = len(a.Calls)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: empty answer (errors %v)", ErrWrong, op, a.Errors)
	}
	return nil
}

// edit writes text to path on disk, waits delay (an agent's time between
// its write and its call; 0 by default) and calls the diagnostics tool on
// the caller. It returns the time from the write to the answer, and
// ErrWrong unless the answer is fresh with (want) or without (!want) an
// error on the call's line.
func (m *mcpSide) edit(ctx context.Context, path, text string, t target, want bool, delay time.Duration) (time.Duration, error) {
	start := time.Now()
	if err := writeFile(filepath.Join(m.root, filepath.FromSlash(path)), text); err != nil {
		return 0, err
	}
	if err := sleep(ctx, delay); err != nil {
		return 0, err
	}
	return m.diagnose(ctx, start, t, want)
}

// diagnose calls the diagnostics tool on the caller and checks the answer
// (checkDiagnostics); the time counts from start.
func (m *mcpSide) diagnose(ctx context.Context, start time.Time, t target, want bool) (time.Duration, error) {
	raw, d, err := m.call(ctx, start, "diagnostics", map[string]any{"files": []string{t.Call.Path}})
	if err != nil {
		return d, err
	}
	var a diagAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return d, err
	}
	return d, checkDiagnostics(a, t, want)
}

// checkDiagnostics checks a diagnostics answer for the caller: the first
// file is the one asked about (other files the change broke follow it).
func checkDiagnostics(a diagAnswer, t target, want bool) error {
	if len(a.Files) == 0 || a.Files[0].Path != t.Call.Path {
		return fmt.Errorf("%w: diagnostics: the answer does not begin with %s (%d files)", ErrWrong, t.Call.Path, len(a.Files))
	}
	f := a.Files[0]
	if f.Status != "fresh" {
		return fmt.Errorf("%w: diagnostics: status %s (%s)", ErrWrong, f.Status, f.Detail)
	}
	has := false
	for _, d := range f.Diagnostics {
		has = has || d.Severity == "error" && d.Line == t.Call.Line
	}
	if has != want {
		return fmt.Errorf("%w: diagnostics: error on line %d: %v, want %v (%d diagnostics)", ErrWrong, t.Call.Line, has, want, len(f.Diagnostics))
	}
	return nil
}

// isWrong reports whether err is a refused answer rather than a failure.
func isWrong(err error) bool { return errors.Is(err, ErrWrong) }
