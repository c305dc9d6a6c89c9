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
// Progress: while a tool call waits and a server it needs (those serving
// its files; every server for workspaceSymbol) is starting, restarting
// after a crash or reporting work ("Loading packages..."), a client that
// gave the call a progress token gets notifications/progress naming the
// server, what it does and how long the call has waited.
//
// Logs: the server declares the MCP logging capability. When the runtime's
// logger has a LogHandler, the runtime's log records reach every client
// that set a level with logging/setLevel, as notifications/message, as
// well as the handler's own destination (stderr).
//
// Goroutines: the SDK owns the connection's goroutines and runs each tool
// call on one of them; a StdioTransport connection adds one reader, which
// ends when its input ends or the connection is closed. Serve holds the end
// of the input back from the SDK's reader until the requests read before it
// were answered: the calls in flight get 10 s to finish, then are answered
// with ErrShutdown. A call with a progress token has one progress reporter,
// which ends with the call and which the call joins before it answers. A LogHandler has one sender,
// started when a client first asks for logs and ended by Close. Nothing is
// written to stdout except by the transport: logs go to the runtime's slog
// logger.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/safetext"
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
	// middleware wraps the server's handling of requests (tests).
	middleware []sdk.Middleware
	// inputEndGrace: see inputEndGrace (tests shorten it).
	inputEndGrace time.Duration
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
	life, end := context.WithCancel(ctx)
	defer end()
	tl.life = life
	// On a signal the calls in flight are answered (ErrShutdown) before the
	// connection closes: Run's own context ends once they were, or after
	// answerGrace.
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	defer context.AfterFunc(ctx, func() { tl.drain(answerGrace, nil); stopRun() })()
	err := srv.Run(runCtx, endingTransport{Transport: t, tl: tl, end: end})
	if tl.logs != nil {
		tl.logs.forgetServer(srv)
	}
	if ctx.Err() != nil && errors.Is(err, runCtx.Err()) || tl.inputEnded.Load() {
		err = nil // a signal, or the client went away: how a server stops
	}
	// The session ends even when ctx is done: bound it on its own.
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
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
	logs    *logHub // nil when the runtime's logger is not a LogHandler
	// life ends when the server stops (Serve's context, or endGrace after
	// the end of its input): calls in flight are then answered at once,
	// with ErrShutdown.
	life context.Context
	// inputEnded: the client closed the connection (a normal end).
	inputEnded *atomic.Bool
	// unanswered counts the client's requests read and not yet answered
	// (the answer written, not only returned by its handler).
	unanswered *inFlight
	// endGrace: see inputEndGrace.
	endGrace time.Duration
}

// answerGrace bounds how long a stopping server waits for its calls in
// flight to be answered once they were told to end.
const answerGrace = 500 * time.Millisecond

// inputEndGrace bounds how long the calls in flight when the client closes
// its input go on to their answers before they are answered with
// ErrShutdown (and the connection ends answerGrace later at most): a client
// that writes its requests and closes its end, as a script does, gets
// their answers; a hung call does not keep the process.
const inputEndGrace = 10 * time.Second

// drain waits, at most d, until every request of the client was answered,
// or until stop is closed (nil: never).
func (tl *tools) drain(d time.Duration, stop <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-tl.unanswered.none():
	case <-t.C:
	case <-stop:
	}
}

func newServer(rt *agentlsp.Runtime, version string, opts []Option) (*sdk.Server, *tools) {
	o := options{callTimeout: DefaultCallTimeout, inputEndGrace: inputEndGrace}
	for _, f := range opts {
		f(&o)
	}
	if o.sessionID == "" {
		o.sessionID = "mcp-" + strconv.FormatUint(servers.Add(1), 10)
	}
	log := rt.System().Logger().With("component", "mcp")
	tl := &tools{rt: rt, session: rt.Session(o.sessionID), timeout: o.callTimeout, log: log, logs: logHubOf(rt),
		life: context.Background(), inputEnded: new(atomic.Bool), unanswered: newInFlight(), endGrace: o.inputEndGrace}
	so := &sdk.ServerOptions{Logger: slog.New(quietStop{Handler: log.Handler(), ended: tl.inputEnded}), Instructions: instructions,
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}}}
	if o.server != nil {
		o.server(so)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "agentlsp", Title: "agentlsp", Version: version}, so)
	srv.AddReceivingMiddleware(growStack)
	if tl.logs != nil {
		srv.AddReceivingMiddleware(tl.logs.middleware(srv))
	}
	srv.AddReceivingMiddleware(o.middleware...)
	addTool(srv, lspTool(), guard(tl, "lsp", lspScope, tl.lsp))
	addTool(srv, diagnosticsTool(), guard(tl, "diagnostics", diagnosticsScope, tl.diagnostics))
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

// guard bounds a handler by the call timeout, reports the progress of
// the servers the call needs (sc says which) while it waits, turns a panic
// into a tool error and makes every error's text say which tool failed.
// Logs of the call carry its session in their context (see LogHandler).
func guard[In, Out any](tl *tools, name string, sc func(In) scope, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		ctx, cancel := context.WithTimeout(withSession(ctx, req), tl.timeout)
		defer cancel()
		defer context.AfterFunc(tl.life, cancel)() // the server stops: answer now
		defer func() {
			if p := recover(); p != nil {
				tl.log.ErrorContext(ctx, "mcp: tool panicked", "tool", name, "panic", p)
				res, err = nil, fmt.Errorf("%s: %w: %v", name, ErrInternal, p)
			}
		}()
		stop := tl.reportProgress(ctx, req, sc(in))
		defer stop()
		res, out, err = h(ctx, req, in)
		if err != nil && tl.life.Err() != nil {
			err = fmt.Errorf("%w: the server is stopping", agentlsp.ErrShutdown)
		}
		if err != nil {
			tl.log.DebugContext(ctx, "mcp: tool error", "tool", name, "error", err)
			return nil, out, fmt.Errorf("%s: %w", name, err)
		}
		return res, out, nil
	}
}

// explain rewords the error of a call whose context ended: the call
// timeout or the client's cancellation.
func explain(ctx context.Context, err error, timeout time.Duration) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, agentlsp.ErrDaemonLost):
		return fmt.Errorf("%w after %v: no answer from the shared daemon: %w", ErrCallTimeout, timeout, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w after %v: the language server did not answer in time (it may still be starting or indexing; try again)", ErrCallTimeout, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("cancelled by the client: %w", err)
	}
	return err
}

// textResult is a result whose content is text, for the model and for
// whoever reads the agent's transcript: control characters, and the
// invisible characters that reorder or hide text (bidirectional
// overrides, zero-width characters, tag characters), are escaped
// (safetext.Escape), so what a server or a file name says cannot show
// itself otherwise to a person than it reads to the model, nor carry
// words only the model sees. The structured content keeps every name and
// message exact.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: safetext.Escape(text)}}}
}

// quietStop is the SDK's logger: a client that goes away, or a signal, is
// how a server stops, so the SDK's "server run cancelled" (and the end of
// a session whose client closed its input) is no error.
type quietStop struct {
	slog.Handler
	ended *atomic.Bool
}

func (h quietStop) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelError && (r.Message == "server run cancelled" ||
		r.Message == "server session ended with error" && h.ended.Load()) {
		if !h.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietStop) WithAttrs(as []slog.Attr) slog.Handler {
	return quietStop{Handler: h.Handler.WithAttrs(as), ended: h.ended}
}

func (h quietStop) WithGroup(name string) slog.Handler {
	return quietStop{Handler: h.Handler.WithGroup(name), ended: h.ended}
}

// endingTransport ends a server's life when its connection's input ends
// (the client closed stdin), once the requests read before were answered:
// the SDK writes no answer once its reader has returned (jsonrpc2's
// Connection refuses to write when its read side is done), so the end of
// the input reaches it only then. The calls in flight get inputEndGrace to
// answer; then the server's life ends, which answers them at once
// (ErrShutdown), and the end of the input reaches the SDK when they were
// answered, or answerGrace later. It counts the client's requests not yet
// answered, so that a server stopped by its context also closes its
// connection only once their answers were written.
type endingTransport struct {
	sdk.Transport
	tl  *tools
	end context.CancelFunc
}

func (t endingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &endingConn{Connection: c, tl: t.tl, end: t.end, closed: make(chan struct{})}, nil
}

type endingConn struct {
	sdk.Connection
	tl        *tools
	end       context.CancelFunc
	closed    chan struct{} // closed by Close: the SDK closed the connection
	closeOnce sync.Once
}

// Read returns the next message; at the end of the input, it first waits
// (bounded) for the requests read before to be answered.
func (c *endingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && err == nil && r.IsCall() {
		c.tl.unanswered.add(1)
	}
	if err == nil {
		return m, nil
	}
	select {
	case <-c.closed: // the SDK closed the connection: nothing is left to answer
	default:
		if ctx.Err() == nil {
			c.tl.inputEnded.Store(true)
			c.tl.drain(c.tl.endGrace, c.closed)
			c.end() // calls still in flight: answer now
			c.tl.drain(answerGrace, c.closed)
		}
	}
	c.end()
	return m, err
}

func (c *endingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	if _, ok := m.(*jsonrpc.Response); ok {
		c.tl.unanswered.add(-1) // written or failed: either way, no more to wait for
	}
	return err
}

func (c *endingConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// inFlight counts the client's requests read and not yet answered. Safe
// for concurrent use.
type inFlight struct {
	mu    sync.Mutex
	n     int
	zeroC chan struct{} // closed while n is 0
}

func newInFlight() *inFlight {
	z := make(chan struct{})
	close(z)
	return &inFlight{zeroC: z}
}

// add adds d to the count (never below 0).
func (f *inFlight) add(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.n
	f.n = max(f.n+d, 0)
	switch {
	case was == 0 && f.n > 0:
		f.zeroC = make(chan struct{})
	case was > 0 && f.n == 0:
		close(f.zeroC)
	}
}

// none returns a channel closed once no request is left unanswered.
func (f *inFlight) none() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.zeroC
}
