package daemon

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// authHeader is the gRPC metadata key that carries the token.
const authHeader = "authorization"

// auth checks the token of every gRPC connection a remote accepts and
// presents the right token on every connection it makes. A daemon accepts
// its own token and presents it to its clients; a client accepts the
// tokens of the daemons it attached to and presents each daemon's token to
// it. Safe for concurrent use.
type auth struct {
	log *slog.Logger

	mu       sync.Mutex
	accepted map[string]bool   // tokens accepted from peers
	byAddr   map[string]string // token to present, by address dialled
	own      string            // token presented to any other address

	// lastActive is when the last message arrived (unix nanoseconds), for
	// the daemon's idle timeout.
	lastActive atomic.Int64
}

func newAuth(own string, log *slog.Logger) *auth {
	a := &auth{log: log, accepted: map[string]bool{}, byAddr: map[string]string{}, own: own}
	if own != "" {
		a.accepted[own] = true
	}
	a.touch()
	return a
}

// allow makes a client present token to addr and accept it from any peer.
func (a *auth) allow(addr, token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byAddr[addr] = token
	a.accepted[token] = true
}

func (a *auth) touch() { a.lastActive.Store(time.Now().UnixNano()) }

// idleSince is when the last message arrived.
func (a *auth) idleSince() time.Time { return time.Unix(0, a.lastActive.Load()) }

// check accepts ctx's token or returns an Unauthenticated error, logged
// with the peer's address.
func (a *auth) check(ctx context.Context, method string) error {
	var got string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(authHeader); len(v) == 1 {
			got, _ = strings.CutPrefix(v[0], "Bearer ")
		}
	}
	a.mu.Lock()
	ok := false
	for tok := range a.accepted {
		if subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1 {
			ok = true
		}
	}
	a.mu.Unlock()
	if ok && got != "" {
		return nil
	}
	addr := "unknown"
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		addr = p.Addr.String()
	}
	why := "wrong token"
	if got == "" {
		why = "no token"
	}
	a.log.Warn("daemon: connection refused", "peer", addr, "reason", why, "method", method)
	return status.Error(codes.Unauthenticated, "agentlsp: "+why)
}

// streamServer is the server's stream interceptor: the token first, then
// every received message marks activity.
func (a *auth) streamServer(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return h(srv, &activeStream{ServerStream: ss, a: a})
}

// unaryServer refuses every unary call: protoactor's are unimplemented
// (they panic) and agentlsp uses none.
func (a *auth) unaryServer(ctx context.Context, _ any, info *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return nil, status.Error(codes.Unimplemented, "agentlsp: not served")
}

// streamClient presents the token of the address dialled.
func (a *auth) streamClient(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	a.mu.Lock()
	tok, ok := a.byAddr[cc.Target()]
	if !ok {
		tok = a.own
	}
	a.mu.Unlock()
	ctx = metadata.AppendToOutgoingContext(ctx, authHeader, "Bearer "+tok)
	return streamer(ctx, desc, cc, method, opts...)
}

// activeStream marks activity on every message received.
type activeStream struct {
	grpc.ServerStream
	a *auth
}

func (s *activeStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil {
		s.a.touch()
	}
	return err
}
