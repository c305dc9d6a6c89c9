package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentlsp/agentlsp/messages"
)

// Go sends a request and calls done exactly once with its result (raw
// JSON, "null" when the server answered null) or error, from a goroutine the
// connection owns. It never blocks. The request is written after every
// message queued before it.
//
// Errors: messages.ErrRequestTimeout when ctx's deadline passed,
// messages.ErrCanceled when ctx was cancelled (in both cases the server gets
// $/cancelRequest), *messages.RPCError for an error response, and the
// connection's end cause (wrapping ErrExited, ErrProtocol, ...) when the
// connection ended first.
func (c *Conn) Go(ctx context.Context, method string, params any, done func(json.RawMessage, error)) {
	var once sync.Once
	finish := func(res json.RawMessage, err error) { once.Do(func() { done(res, err) }) }
	err := c.out.push(op{
		run:   func() { c.startCall(ctx, method, params, finish) },
		abort: func(err error) { finish(nil, c.endErr(err)) },
	})
	if err != nil {
		finish(nil, c.endErr(err))
	}
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
	err := c.out.push(op{
		run: func() {
			if err := c.rpc.Notify(c.life, method, params); err != nil {
				c.end(fmt.Errorf("%w: notification %s: %v", ErrWriteFailed, method, err))
			}
		},
		abort: func(error) {},
	})
	if err != nil {
		return c.endErr(err)
	}
	return nil
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

// startCall runs on the writer: it starts the call's waiter and returns
// once the request has been written, so later messages follow it.
func (c *Conn) startCall(ctx context.Context, method string, params any, finish func(json.RawMessage, error)) {
	written := make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(written) }) }
	c.calls.Add(1)
	// The waiter lives until the answer, ctx's end or the connection's end.
	go func() {
		defer c.calls.Done()
		defer signal()
		c.waitCall(ctx, signal, method, params, finish)
	}()
	select {
	case <-written:
	case <-c.life.Done():
	}
}

func (c *Conn) waitCall(ctx context.Context, written func(), method string, params any, finish func(json.RawMessage, error)) {
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.life, cancel)
	defer stop()

	// No result pointer: jsonrpc2 would decode the result with a decoder
	// per call; the stream hands the raw result over instead.
	id, err := c.rpc.Call(context.WithValue(callCtx, writtenKey{}, written), method, params, nil)
	raw := c.stream.take(id)
	switch {
	case err == nil:
		finish(raw, nil)
	case c.life.Err() != nil && ctx.Err() == nil:
		finish(nil, c.endErr(ErrClosed))
	case ctx.Err() != nil:
		c.cancelRemote(id)
		finish(nil, ctxError(ctx, method))
	default:
		var we *jsonrpc2.Error
		if errors.As(err, &we) {
			finish(nil, &messages.RPCError{Code: int64(we.Code), Message: we.Message})
			return
		}
		// A write failure: the stream is unusable.
		c.end(fmt.Errorf("%w: request %s: %v", ErrWriteFailed, method, err))
		finish(nil, c.endErr(err))
	}
}

// cancelRemote tells the server to abandon request id.
func (c *Conn) cancelRemote(id jsonrpc2.ID) {
	_ = c.Notify("$/cancelRequest", map[string]any{"id": &id})
}

func ctxError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s", messages.ErrRequestTimeout, method)
	}
	return fmt.Errorf("%w: %s", messages.ErrCanceled, method)
}
