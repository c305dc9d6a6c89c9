package mcp

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
)

// DefaultHTTPSessionTimeout closes an MCP session over HTTP that made no
// request for this long (its agentlsp session ends, releasing its
// documents).
const DefaultHTTPSessionTimeout = 30 * time.Minute

// HTTPConfig configures NewHTTPHandler.
type HTTPConfig struct {
	// Token is the bearer token every request must carry (required).
	Token string
	// SessionTimeout closes idle MCP sessions (default
	// DefaultHTTPSessionTimeout).
	SessionTimeout time.Duration
	// OnRequest, if not nil, is called for every authenticated request;
	// OnSession when an MCP session starts, and the function it returns
	// when it ends (the daemon's idle accounting).
	OnRequest func()
	OnSession func() (end func())
}

// HTTPHandler serves MCP over streamable HTTP (the SDK's handler) with the
// same tools as Serve. Each MCP session gets an agentlsp Session of its
// own ("http-N"), ended when the MCP session closes (the client's DELETE,
// or SessionTimeout without a request). Requests without the bearer token
// get 401 and are logged with the peer's address. Safe for concurrent
// use; Close ends the sessions.
type HTTPHandler struct {
	rt      *agentlsp.Runtime
	cfg     HTTPConfig
	log     *slog.Logger
	handler *sdk.StreamableHTTPHandler
	opts    []Option
	next    atomic.Uint64

	mu       sync.Mutex
	sessions map[*sdk.ServerSession]bool
	closed   bool
	wg       sync.WaitGroup
}

// NewHTTPHandler returns the MCP HTTP handler for rt.
func NewHTTPHandler(rt *agentlsp.Runtime, version string, cfg HTTPConfig, opts ...Option) *HTTPHandler {
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = DefaultHTTPSessionTimeout
	}
	h := &HTTPHandler{rt: rt, cfg: cfg, log: rt.System().Logger().With("component", "mcp-http"),
		opts: opts, sessions: map[*sdk.ServerSession]bool{}}
	h.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.server(version) },
		&sdk.StreamableHTTPOptions{Logger: h.log, SessionTimeout: cfg.SessionTimeout})
	return h
}

// server makes the SDK server of one new MCP session.
func (h *HTTPHandler) server(version string) *sdk.Server {
	var tl *tools
	track := func(so *sdk.ServerOptions) {
		so.InitializedHandler = func(_ context.Context, req *sdk.InitializedRequest) { h.track(req.Session, tl.session) }
	}
	id := fmt.Sprintf("http-%d", h.next.Add(1))
	srv, tl := newServer(h.rt, version, append(append([]Option(nil), h.opts...), WithSessionID(id), func(o *options) { o.server = track }))
	return srv
}

// track ends s when the MCP session ss closes.
func (h *HTTPHandler) track(ss *sdk.ServerSession, s *agentlsp.Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		ss.Close()
		return
	}
	h.sessions[ss] = true
	end := func() {}
	if h.cfg.OnSession != nil {
		end = h.cfg.OnSession()
	}
	h.wg.Add(1)
	// Lives as long as the MCP session; Close closes them all and joins.
	go func() {
		defer h.wg.Done()
		defer end()
		_ = ss.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.End(ctx); err != nil {
			h.log.Warn("mcp: ending the session", "session", s.ID(), "error", err)
		}
		h.mu.Lock()
		delete(h.sessions, ss)
		h.mu.Unlock()
	}()
}

// ServeHTTP checks the bearer token and serves the request.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(h.cfg.Token)) != 1 {
		why := "wrong token"
		if !ok {
			why = "no bearer token"
		}
		h.log.Warn("mcp: HTTP request refused", "peer", r.RemoteAddr, "reason", why)
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentlsp"`)
		http.Error(w, "agentlsp: "+why, http.StatusUnauthorized)
		return
	}
	if h.cfg.OnRequest != nil {
		h.cfg.OnRequest()
	}
	h.handler.ServeHTTP(w, r)
}

// Close closes every MCP session and waits until their agentlsp sessions
// ended. Sessions that start later are closed at once.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	var open []*sdk.ServerSession
	for ss := range h.sessions {
		open = append(open, ss)
	}
	h.mu.Unlock()
	for _, ss := range open {
		ss.Close()
	}
	h.wg.Wait()
}
