package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentlsp/agentlsp/messages"
)

// pendingCall is one call the connection waits for an answer to. It lives
// in the connection's table from before its request is written until the
// reader completes it, its context ends, or the connection ends; whoever
// removes it from the table calls done, so done runs exactly once.
type pendingCall struct {
	id      jsonrpc2.ID
	method  string
	done    func(json.RawMessage, error)
	stop    func() bool // stops the context.AfterFunc; set under the table's lock
	written bool        // the request left the outbox; set under the table's lock
}

// calls is the connection's table of pending calls.
type calls struct {
	mu      sync.Mutex
	seq     int32
	closed  bool
	pending map[jsonrpc2.ID]*pendingCall
}

// add registers a new call; false after the connection ended.
func (t *calls) add(method string, done func(json.RawMessage, error)) (*pendingCall, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false
	}
	var id jsonrpc2.ID
	for {
		if t.seq++; t.seq == math.MaxInt32 {
			t.seq = 1 // wrapped: ids are only unique among pending calls
		}
		if id = jsonrpc2.NewNumberID(t.seq); t.pending[id] == nil {
			break
		}
	}
	p := &pendingCall{id: id, method: method, done: done}
	t.pending[p.id] = p
	return p, true
}

// remove takes a call out of the table; nil when someone else did.
func (t *calls) remove(id jsonrpc2.ID) *pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[id]
	delete(t.pending, id)
	return p
}

// live reports whether the call is still pending, and marks it written
// when it is (the writer is about to write it).
func (t *calls) markWritten(p *pendingCall) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending[p.id] != p {
		return false
	}
	p.written = true
	return true
}

// setStop records the AfterFunc stop of a call; false when the call is
// already gone (the caller must then stop it).
func (t *calls) setStop(p *pendingCall, stop func() bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending[p.id] != p {
		return false
	}
	p.stop = stop
	return true
}

// closeAll refuses new calls and returns those pending.
func (t *calls) closeAll() []*pendingCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	out := make([]*pendingCall, 0, len(t.pending))
	for _, p := range t.pending {
		out = append(out, p)
	}
	clear(t.pending)
	return out
}

// finish stops the call's context watch and calls done.
func (p *pendingCall) finish(res json.RawMessage, err error) {
	if p.stop != nil {
		p.stop()
	}
	p.done(res, err)
}

// Go sends a request and calls done exactly once with its result (raw
// JSON, "null" when the server answered null) or error. It never blocks,
// and starts no goroutine: the request waits in the connection's table
// until the reader completes it with the server's answer, or until ctx ends
// (context.AfterFunc) or the connection does. done runs on the reader or
// on the goroutine that ended the call: it must not block. The request is
// written after every message queued before it.
//
// Errors: messages.ErrRequestTimeout when ctx's deadline passed,
// messages.ErrCanceled when ctx was cancelled (in both cases the server gets
// $/cancelRequest if the request was written), *messages.RPCError for an
// error response, and the connection's end cause (wrapping ErrExited,
// ErrProtocol, ...) when the connection ended first.
func (c *Conn) Go(ctx context.Context, method string, params any, done func(json.RawMessage, error)) {
	raw, err := marshalParams(params)
	if err != nil {
		done(nil, fmt.Errorf("transport: %s params: %w", method, err))
		return
	}
	p, ok := c.calls.add(method, done)
	if !ok {
		done(nil, c.endErr(ErrClosed))
		return
	}
	stop := context.AfterFunc(ctx, func() { c.abandon(p, ctx) })
	if !c.calls.setStop(p, stop) {
		stop()
	}
	live := func() bool { return c.calls.markWritten(p) } // abandoned before its turn: not sent
	if c.writeNow(&p.id, p.method, raw, live) {
		return
	}
	err = c.out.push(op{
		run: func() {
			if live() {
				c.write(&p.id, p.method, raw)
			}
		},
		abort: func(err error) {
			if c.calls.remove(p.id) != nil {
				p.finish(nil, c.endErr(err))
			}
		},
	})
	if err != nil && c.calls.remove(p.id) != nil {
		p.finish(nil, c.endErr(err))
	}
}

// complete hands the server's answer to its call (the reader's job); an
// answer nobody waits for any more (late, or an unknown id) is dropped.
func (c *Conn) complete(m *incoming) {
	p := c.calls.remove(m.id)
	if p == nil {
		return
	}
	if m.err != nil {
		p.finish(nil, &messages.RPCError{Code: int64(m.err.Code), Message: m.err.Message})
		return
	}
	p.finish(m.result, nil)
}

// abandon ends a call whose context ended: the server is told with
// $/cancelRequest if it got the request.
func (c *Conn) abandon(p *pendingCall, ctx context.Context) {
	if c.calls.remove(p.id) == nil {
		return
	}
	c.calls.mu.Lock()
	written := p.written
	c.calls.mu.Unlock()
	if written {
		_ = c.Notify("$/cancelRequest", map[string]any{"id": &p.id})
	}
	p.done(nil, ctxError(ctx, p.method))
}

// Call is Go, waiting for the answer.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	type answer struct {
		res json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	c.Go(ctx, method, params, func(res json.RawMessage, err error) { ch <- answer{res, err} })
	a := <-ch
	return a.res, a.err
}

// Notify queues a notification. It never blocks; it fails only when the
// connection has ended or its queue is full.
func (c *Conn) Notify(method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("transport: %s params: %w", method, err)
	}
	if c.writeNow(nil, method, raw, nil) {
		return nil
	}
	if err := c.out.push(op{run: func() { c.write(nil, method, raw) }, abort: func(error) {}}); err != nil {
		return c.endErr(err)
	}
	return nil
}

// write writes a request or notification on the writer goroutine; a
// failure ends the connection (the stream is unusable).
func (c *Conn) write(id *jsonrpc2.ID, method string, params wireParams) {
	if _, err := c.stream.writeRequest(c.life, id, method, params); err != nil {
		c.endWrite(method, err)
	}
}

// endWrite ends the connection after a failed write of method.
func (c *Conn) endWrite(method string, err error) {
	if errors.Is(err, ErrWriteFailed) {
		c.end(fmt.Errorf("%s: %w", method, err))
	} else {
		c.end(fmt.Errorf("%w: %s: %w", ErrWriteFailed, method, err))
	}
}

// wireParams are a message's params as JSON. compact says json.Marshal
// wrote them (valid and compact: they are written as they are); raw JSON
// a caller handed in is checked and compacted when written.
type wireParams struct {
	raw     json.RawMessage
	compact bool
}

// marshalParams encodes params once, on the caller's goroutine; raw JSON
// is taken as it is.
func marshalParams(params any) (wireParams, error) {
	switch p := params.(type) {
	case nil:
		return wireParams{}, nil
	case json.RawMessage:
		return wireParams{raw: p}, nil
	}
	raw, err := json.Marshal(params)
	return wireParams{raw: raw, compact: true}, err
}

// endErr returns the connection's end cause when it has one, else err.
func (c *Conn) endErr(err error) error {
	if cause := c.Err(); cause != nil {
		return cause
	}
	if c.life.Err() != nil && c.graceful.Load() {
		return ErrClosed
	}
	return err
}

func ctxError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s", messages.ErrRequestTimeout, method)
	}
	return fmt.Errorf("%w: %s", messages.ErrCanceled, method)
}
