// Package mcp serves agentlsp over the Model Context Protocol, with the
// official MCP Go SDK. It offers two read-only tools:
//
//   - lsp: code navigation (definition, references, hover, symbols,
//     implementations, call hierarchy) at a 1-based line and character, or
//     at a symbol named on a line;
//   - diagnostics: re-sync files from disk and report their diagnostics in
//     the model format, with a status that says how fresh they are.
//
// Every answer is text for the model (relative paths, 1-based positions,
// a line of source as preview, which servers answered and whether one was
// still indexing) and the same answer as structured content. Locations and
// calls are sorted; an answer holds at most MaxResults of them and counts
// the rest.
// Every failure (a bad path, a position past the end, a broken or slow
// server, a timeout) is a tool error whose text names the problem: never a
// protocol error, never a crash, never a hang (each call is bounded by the
// call timeout, 60 s by default).
//
// Sessions: each server (from NewServer or Serve) asks the runtime through
// one agentlsp Session ("mcp-1", "mcp-2", ... or WithSessionID), shared by
// every client connected to that server. Serve, which runs one server for
// one client, ends the session when the client goes; the session of a
// NewServer lives until the runtime shuts down.
//
// Goroutines: the SDK owns the connection's goroutines and runs each tool
// call on one of them; a StdioTransport connection adds one reader, which
// ends when its input ends or the connection is closed. Nothing is written
// to stdout except by the transport: logs go to the runtime's slog logger.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
)

// DefaultCallTimeout bounds one tool call.
const DefaultCallTimeout = 60 * time.Second

// Errors of this package. The tools return them, wrapped with detail, as
// tool errors, beside the runtime's own (messages.ErrServerBroken, ...).
var (
	// ErrBadInput: an argument is missing or out of range.
	ErrBadInput = errors.New("mcp: bad input")
	// ErrUnknownOperation: the lsp tool's operation is not one it knows.
	ErrUnknownOperation = errors.New("mcp: unknown operation")
	// ErrCallTimeout: the call did not finish within the call timeout.
	ErrCallTimeout = errors.New("mcp: timed out")
	// ErrInternal: a tool handler panicked; the server keeps serving.
	ErrInternal = errors.New("mcp: internal error")
)

// options are the settings Option changes.
type options struct {
	callTimeout time.Duration
	sessionID   string
	// server, if not nil, changes the SDK server's options (http.go).
	server func(*sdk.ServerOptions)
}

// Option changes a setting of NewServer or Serve.
type Option func(*options)

// WithCallTimeout bounds each tool call (default DefaultCallTimeout).
func WithCallTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.callTimeout = d
		}
	}
}

// WithSessionID names the agentlsp session the server uses (default
// "mcp-N", N counting the servers made in this process).
func WithSessionID(id string) Option { return func(o *options) { o.sessionID = id } }

// servers counts the servers made, to name their sessions.
var servers atomic.Uint64

// NewServer returns an MCP server with the lsp and diagnostics tools. Every
// client connected to it shares its one agentlsp Session, which lives until
// rt shuts down. It does not block; connect it with Server.Run or
// Server.Connect, or use Serve. The server is safe for concurrent use.
func NewServer(rt *agentlsp.Runtime, version string, opts ...Option) *sdk.Server {
	srv, _ := newServer(rt, version, opts)
	return srv
}

// Serve runs an MCP server for rt on transport t until the client
// disconnects or ctx ends, then ends the server's agentlsp session (closing
// the documents it opened). It returns nil in both cases, or the error that
// broke the connection. Only the transport writes to its output.
func Serve(ctx context.Context, rt *agentlsp.Runtime, t sdk.Transport, version string, opts ...Option) error {
	srv, tl := newServer(rt, version, opts)
	err := srv.Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = nil
	}
	// The session ends even when ctx is done: bound it on its own.
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if endErr := tl.session.End(endCtx); endErr != nil {
		tl.log.Warn("mcp: ending the session", "session", tl.session.ID(), "error", endErr)
	}
	return err
}

// tools holds what the tool handlers need. It keeps no mutable state, so
// handlers run concurrently.
type tools struct {
	rt      *agentlsp.Runtime
	session *agentlsp.Session
	timeout time.Duration
	log     *slog.Logger
}

func newServer(rt *agentlsp.Runtime, version string, opts []Option) (*sdk.Server, *tools) {
	o := options{callTimeout: DefaultCallTimeout}
	for _, f := range opts {
		f(&o)
	}
	if o.sessionID == "" {
		o.sessionID = "mcp-" + strconv.FormatUint(servers.Add(1), 10)
	}
	log := rt.System().Logger().With("component", "mcp")
	tl := &tools{rt: rt, session: rt.Session(o.sessionID), timeout: o.callTimeout, log: log}
	so := &sdk.ServerOptions{Logger: log, Instructions: instructions}
	if o.server != nil {
		o.server(so)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "agentlsp", Title: "agentlsp", Version: version}, so)
	sdk.AddTool(srv, lspTool(), guard(tl, "lsp", tl.lsp))
	sdk.AddTool(srv, diagnosticsTool(), guard(tl, "diagnostics", tl.diagnostics))
	return srv, tl
}

// instructions tell the client what the server is for.
const instructions = "agentlsp answers with real language servers (gopls, pyright, typescript, clangd, ...). " +
	"Use lsp to navigate code (lines and characters are 1-based, as editors show them; " +
	"name a symbol on the line instead of counting characters) and diagnostics to check files after editing them."

// readOnly are the annotations of both tools: they change nothing, give the
// same answer for the same state, and see only the workspace.
func readOnly(title string) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

// guard bounds a handler by the call timeout, turns a panic into a tool
// error and makes every error's text say which tool failed.
func guard[In, Out any](tl *tools, name string, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		ctx, cancel := context.WithTimeout(ctx, tl.timeout)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				tl.log.Error("mcp: tool panicked", "tool", name, "panic", p)
				res, err = nil, fmt.Errorf("%s: %w: %v", name, ErrInternal, p)
			}
		}()
		res, out, err = h(ctx, req, in)
		if err != nil {
			tl.log.Debug("mcp: tool error", "tool", name, "error", err)
			return nil, out, fmt.Errorf("%s: %w", name, err)
		}
		return res, out, nil
	}
}

// explain rewords the error of a call whose context ended: the call
// timeout or the client's cancellation.
func explain(ctx context.Context, err error, timeout time.Duration) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w after %v: the language server did not answer in time (it may still be starting or indexing; try again)", ErrCallTimeout, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("cancelled by the client: %w", err)
	}
	return err
}

// textResult is a result whose content is text.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
