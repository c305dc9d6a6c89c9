package mcp

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
)

// logQueue bounds the records waiting to be sent to MCP clients; more are
// dropped (and counted on the next handler).
const logQueue = 256

// logSendTimeout bounds sending one record to one client; a client that
// does not take it in time gets no more logs until it sets a level again.
const logSendTimeout = 5 * time.Second

// LogHandler is a slog.Handler that sends every record to a next handler
// (the command's stderr handler) and to the MCP client sessions that asked
// for logs with logging/setLevel, as notifications/message (logger
// "agentlsp") for records at or above the level each session set. A record
// logged with the context of a tool call (the context the tool handlers
// get) goes only to the session that made the call; any other record goes
// to every session that asked.
//
// Give it to the runtime (agentlsp.Config.Logger = slog.New(h)) and every
// server NewServer or Serve makes for that runtime sends the runtime's logs
// to its clients. Until a client sets a level it gets none, as MCP says.
//
// Handle never blocks on a client: records for clients wait in a bounded
// queue, sent in order by one goroutine that the handler starts when the
// first client asks for logs and that Close ends. Records that find the
// queue full are dropped, and a warning on next counts them. Nothing is
// ever written to stdout. Safe for concurrent use.
type LogHandler struct {
	next slog.Handler
	ops  []logOp // WithAttrs and WithGroup since NewLogHandler, in order
	hub  *logHub // shared by every handler derived from the first
}

// logOp is one WithGroup (group != "") or WithAttrs call.
type logOp struct {
	group string
	attrs []slog.Attr
}

// NewLogHandler returns a handler that sends records to next, and to MCP
// clients once they ask. Call Close when the runtime is shut down.
func NewLogHandler(next slog.Handler) *LogHandler {
	hub := &logHub{next: next, sessions: map[*sdk.ServerSession]*logTarget{}, queue: make(chan logEntry, logQueue)}
	hub.ctx, hub.cancel = context.WithCancel(context.Background())
	hub.min.Store(math.MaxInt64)
	return &LogHandler{next: next, hub: hub}
}

// Enabled reports whether next or some client wants records at level.
func (h *LogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level) || h.hub.wants(level)
}

// Handle passes r to next if next wants it, and queues it for the clients
// that want it. It returns next's error.
func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	h.hub.offer(ctx, h.ops, r)
	return err
}

// WithAttrs returns a handler that adds as to every record, on next and
// for the clients.
func (h *LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	return &LogHandler{next: h.next.WithAttrs(as), ops: append(slices.Clip(h.ops), logOp{attrs: as}), hub: h.hub}
}

// WithGroup returns a handler that puts later attributes in group name.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &LogHandler{next: h.next.WithGroup(name), ops: append(slices.Clip(h.ops), logOp{group: name}), hub: h.hub}
}

// Close stops sending records to clients and waits for the sender; records
// still queued are dropped. Records handled later still reach next. It is
// shared by every handler derived from the same NewLogHandler, and safe to
// call more than once.
func (h *LogHandler) Close() { h.hub.close() }

// logHubOf is the hub of the runtime's logger, nil when its handler is
// not a LogHandler.
func logHubOf(rt *agentlsp.Runtime) *logHub {
	if h, ok := rt.System().Logger().Handler().(*LogHandler); ok {
		return h.hub
	}
	return nil
}

// logHub holds the sessions that asked for logs, the queue and its sender.
type logHub struct {
	next     slog.Handler // for the count of dropped records
	min      atomic.Int64 // the least level a session wants; MaxInt64 when none
	dropped  atomic.Int64 // records dropped since the last count
	queue    chan logEntry
	ctx      context.Context // ends the sender and its sends; cancelled by close
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	sessions map[*sdk.ServerSession]*logTarget
	started  bool // the sender runs
	closed   bool
}

// logTarget is a session that asked for logs.
type logTarget struct {
	level slog.Level
	srv   *sdk.Server // the server it belongs to
	h     *sdk.LoggingHandler
}

// logEntry is a record for the sessions to.
type logEntry struct {
	ops []logOp
	r   slog.Record
	to  []*sdk.ServerSession
}

// sessionKey is the context key of the session of a tool call.
type sessionKey struct{}

// withSession returns ctx carrying the session of req, so that the logs of
// the call go to that session only.
func withSession(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req == nil || req.Session == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, req.Session)
}

func (hb *logHub) wants(level slog.Level) bool { return int64(level) >= hb.min.Load() }

// offer queues r for the sessions that want it, or drops it when the
// queue is full. It never blocks on a client.
func (hb *logHub) offer(ctx context.Context, ops []logOp, r slog.Record) {
	if !hb.wants(r.Level) {
		return
	}
	to := hb.targets(ctx, r.Level)
	if len(to) == 0 {
		return
	}
	select {
	case hb.queue <- logEntry{ops: ops, r: r.Clone(), to: to}:
	default:
		hb.dropped.Add(1)
	}
}

// targets lists the sessions that want a record at level logged with ctx.
func (hb *logHub) targets(ctx context.Context, level slog.Level) []*sdk.ServerSession {
	only, _ := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.closed {
		return nil
	}
	var to []*sdk.ServerSession
	for ss, t := range hb.sessions {
		if level >= t.level && (only == nil || only == ss) {
			to = append(to, ss)
		}
	}
	return to
}

// middleware registers every session of srv that sets a log level.
func (hb *logHub) middleware(srv *sdk.Server) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || method != "logging/setLevel" {
				return res, err
			}
			ss, ok := req.GetSession().(*sdk.ServerSession)
			p, ok2 := req.GetParams().(*sdk.SetLoggingLevelParams)
			if ok && ok2 {
				hb.register(ss, srv, p.Level)
			}
			return res, err
		}
	}
}

// register makes ss get the records at or above level, and starts the
// sender if it does not run yet.
func (hb *logHub) register(ss *sdk.ServerSession, srv *sdk.Server, level sdk.LoggingLevel) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.closed {
		return
	}
	hb.sessions[ss] = &logTarget{level: slogLevel(level), srv: srv,
		h: sdk.NewLoggingHandler(ss, &sdk.LoggingHandlerOptions{LoggerName: "agentlsp"})}
	hb.updateMin()
	if !hb.started {
		hb.started = true
		// The sender lives until close cancels hb.ctx; close joins it.
		hb.wg.Go(hb.send)
	}
}

// forget stops sending to the sessions for which drop is true.
func (hb *logHub) forget(drop func(*sdk.ServerSession, *logTarget) bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	for ss, t := range hb.sessions {
		if drop(ss, t) {
			delete(hb.sessions, ss)
		}
	}
	hb.updateMin()
}

// forgetServer stops sending to the sessions of srv, which have ended.
func (hb *logHub) forgetServer(srv *sdk.Server) {
	hb.forget(func(_ *sdk.ServerSession, t *logTarget) bool { return t.srv == srv })
}

// updateMin recomputes min; hb.mu is held.
func (hb *logHub) updateMin() {
	least := int64(math.MaxInt64)
	for _, t := range hb.sessions {
		least = min(least, int64(t.level))
	}
	hb.min.Store(least)
}

// send is the sender: it delivers queued records in order until close.
func (hb *logHub) send() {
	for {
		select {
		case <-hb.ctx.Done():
			return
		case e := <-hb.queue:
			hb.countDropped()
			for _, ss := range e.to {
				hb.deliver(ss, e)
			}
		}
	}
}

// deliver sends one record to one session; a session that cannot take it
// (closed, or too slow) is forgotten.
func (hb *logHub) deliver(ss *sdk.ServerSession, e logEntry) {
	hb.mu.Lock()
	t, ok := hb.sessions[ss]
	hb.mu.Unlock()
	if !ok {
		return
	}
	var h slog.Handler = t.h
	for _, op := range e.ops {
		if op.group != "" {
			h = h.WithGroup(op.group)
		} else {
			h = h.WithAttrs(op.attrs)
		}
	}
	ctx, cancel := context.WithTimeout(hb.ctx, logSendTimeout)
	defer cancel()
	if err := h.Handle(ctx, e.r); err != nil {
		hb.forget(func(s *sdk.ServerSession, _ *logTarget) bool { return s == ss })
	}
}

// countDropped warns on next of the records dropped since the last count.
func (hb *logHub) countDropped() {
	n := hb.dropped.Swap(0)
	if n == 0 || !hb.next.Enabled(hb.ctx, slog.LevelWarn) {
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelWarn, "mcp: dropped log records for clients that read too slowly", 0)
	r.AddAttrs(slog.Int64("dropped", n))
	_ = hb.next.Handle(hb.ctx, r)
}

// close ends the sender and waits for it.
func (hb *logHub) close() {
	hb.mu.Lock()
	hb.closed = true
	clear(hb.sessions)
	hb.updateMin()
	hb.mu.Unlock()
	hb.cancel()
	hb.wg.Wait()
}

// slogLevel is the slog level of an MCP logging level (debug when unknown).
func slogLevel(l sdk.LoggingLevel) slog.Level {
	levels := map[sdk.LoggingLevel]slog.Level{
		"debug": sdk.LevelDebug, "info": sdk.LevelInfo, "notice": sdk.LevelNotice, "warning": sdk.LevelWarning,
		"error": sdk.LevelError, "critical": sdk.LevelCritical, "alert": sdk.LevelAlert, "emergency": sdk.LevelEmergency,
	}
	if sl, ok := levels[l]; ok {
		return sl
	}
	return sdk.LevelDebug
}
