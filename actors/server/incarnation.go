package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/transport"
)

// incarnation is one process generation of a server actor. Its goroutine
// (started by run, joined by the Reaper) spawns the process, performs the
// initialize handshake, reports the outcome, then waits for the process to
// end and reports that too. The actor talks to the connection only through
// the incarnation, and closes it when it moves on: a connection that the
// goroutine produces after close is killed by the goroutine itself, so no
// process can leak between the handshake and the actor's reaction.
type incarnation struct {
	gen    int             // its number: 1 for the first process
	ctx    context.Context // cancelled by close: aborts the handshake
	cancel context.CancelFunc

	mu     sync.Mutex
	conn   *transport.Conn
	closed bool
}

func newIncarnation(gen int) *incarnation {
	ctx, cancel := context.WithCancel(context.Background())
	return &incarnation{gen: gen, ctx: ctx, cancel: cancel}
}

// setConn publishes the connection; false when the incarnation was closed
// meanwhile (the caller must then kill the connection).
func (in *incarnation) setConn(c *transport.Conn) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return false
	}
	in.conn = c
	return true
}

// connection returns the connection, nil before the process started.
func (in *incarnation) connection() *transport.Conn {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.conn
}

// kill closes the incarnation and kills its process group now. It does not block.
func (in *incarnation) kill() {
	if c := in.close(); c != nil {
		c.Kill()
	}
}

// shutdown closes the incarnation and shuts its server down gracefully in a
// reaper goroutine bounded by timeout, or less when the reaper is hurried.
// It does not block.
func (in *incarnation) shutdown(r *lifecycle.Reaper, timeout time.Duration) {
	c := in.close()
	if c == nil {
		return
	}
	r.Go(func() {
		ctx, cancel := context.WithTimeout(r.Context(), timeout) // ends early when the runtime is out of time
		defer cancel()
		_ = c.Shutdown(ctx)
	})
}

func (in *incarnation) close() *transport.Conn {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = true
	in.cancel()
	return in.conn
}

// Private messages from an incarnation's goroutine to its actor.
type (
	// incStarted: the handshake succeeded.
	incStarted struct {
		gen    int
		osPID  int
		result json.RawMessage // initialize result
	}
	// incFailed: the process could not be started or the handshake failed.
	incFailed struct {
		gen    int
		err    error
		stderr []string
	}
	// incExited: the process of a started incarnation ended.
	incExited struct {
		gen    int
		err    error
		stderr []string
	}
	// incEvent: a notification or observed request from the server.
	incEvent struct {
		gen    int
		method string
		params json.RawMessage
	}
)

// handshake describes how to start and initialize one server process.
type handshake struct {
	opts     transport.Options
	init     any // initialize params
	settings any // didChangeConfiguration settings
	timeout  time.Duration
}

// run is the incarnation's goroutine body; send delivers a message to the
// actor. It returns when the process has ended (or never started).
func (in *incarnation) run(h handshake, send func(any)) {
	startCtx, cancel := context.WithTimeout(in.ctx, h.timeout)
	defer cancel()
	conn, err := transport.Start(startCtx, h.opts)
	if err != nil {
		send(&incFailed{gen: in.gen, err: startError(startCtx, err)})
		return
	}
	if !in.setConn(conn) {
		conn.Kill()
		<-conn.Done()
		return
	}
	res, err := conn.Call(startCtx, "initialize", h.init)
	if err == nil {
		err = errors.Join(conn.Notify("initialized", struct{}{}),
			conn.Notify("workspace/didChangeConfiguration", map[string]any{"settings": h.settings}))
	}
	if err != nil {
		conn.Kill()
		<-conn.Done()
		send(&incFailed{gen: in.gen, err: startError(startCtx, err), stderr: conn.StderrTail()})
		return
	}
	send(&incStarted{gen: in.gen, osPID: conn.PID(), result: res})
	<-conn.Done()
	send(&incExited{gen: in.gen, err: conn.Err(), stderr: conn.StderrTail()})
}

// startError makes a handshake failure say whether it timed out.
func startError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, messages.ErrRequestTimeout) {
		return fmt.Errorf("%w: %v", messages.ErrStartupTimeout, err)
	}
	return err
}

// Messages from an incarnation's goroutine and its connection's callbacks
// can come after the actor stopped (a server's last log lines, its exit,
// an answer to a call the stop abandoned), when nothing waits for them:
// protoactor does not log them as dead letters.
func (*incStarted) IgnoreDeadLetterLogging() {}
func (*incFailed) IgnoreDeadLetterLogging()  {}
func (*incExited) IgnoreDeadLetterLogging()  {}
func (*incEvent) IgnoreDeadLetterLogging()   {}
func (*callDone) IgnoreDeadLetterLogging()   {}
