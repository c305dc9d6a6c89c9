package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// A minimal JSON-RPC client over stdio, for LSP (Content-Length framing)
// and for MCP (one message per line, the lean MCP client): requests with
// their responses matched by id, server->client requests answered in the
// read loop (they are few and small: configuration, progress creation,
// registrations), notifications handed to a callback. It is written by
// hand, apart from agentlsp's transport, so that the baseline is what any
// client pays and nothing more.

// maxFrame bounds one message from the server.
const maxFrame = 64 << 20

// rpcError is a JSON-RPC error response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("lsp error %d: %s", e.Code, e.Message) }

// envelope is any incoming message.
type envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// response is a call's outcome.
type response struct {
	result json.RawMessage
	err    error
}

// lspConn is one connection. Call and Notify are safe for concurrent use.
type lspConn struct {
	w     io.Writer
	wmu   sync.Mutex
	lines bool // MCP's stdio framing: one message per line

	// onRequest answers a server->client request; onNotify sees a
	// notification. Both run on the read loop and must not block.
	onRequest func(method string, params json.RawMessage) any
	onNotify  func(method string, params json.RawMessage)

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response
	err     error // set when the read loop ends

	done chan struct{} // closed when the read loop ends
}

// newLSPConn starts the read loop on r; it lives until r fails or ends
// (the server exited, or its stdout was closed), and closes done then.
func newLSPConn(r io.Reader, w io.Writer, onRequest func(string, json.RawMessage) any, onNotify func(string, json.RawMessage)) *lspConn {
	return newConn(r, w, false, onRequest, onNotify)
}

// newLineConn is newLSPConn with MCP's stdio framing.
func newLineConn(r io.Reader, w io.Writer, onRequest func(string, json.RawMessage) any, onNotify func(string, json.RawMessage)) *lspConn {
	return newConn(r, w, true, onRequest, onNotify)
}

func newConn(r io.Reader, w io.Writer, lines bool, onRequest func(string, json.RawMessage) any, onNotify func(string, json.RawMessage)) *lspConn {
	c := &lspConn{w: w, lines: lines, onRequest: onRequest, onNotify: onNotify, pending: map[int64]chan response{}, done: make(chan struct{})}
	// The read loop: ends at EOF or a read error; joined through done.
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

// Call sends a request and waits for its response or ctx. params nil
// sends no params member at all.
func (c *lspConn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.write(msg); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Notify sends a notification.
func (c *lspConn) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.write(msg)
}

func (c *lspConn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// write frames and sends one message.
func (c *lspConn) write(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.lines {
		_, err = c.w.Write(append(body, '\n'))
		return err
	}
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// readLoop reads frames until an error, dispatching each.
func (c *lspConn) readLoop(r *bufio.Reader) {
	var err error
	defer func() { c.finish(err) }()
	tp := textproto.NewReader(r)
	for {
		var body []byte
		if c.lines {
			body, err = readLine(r)
		} else {
			body, err = readFrame(tp, r)
		}
		if err != nil {
			return
		}
		var m envelope
		if err = json.Unmarshal(body, &m); err != nil {
			err = fmt.Errorf("%w: %v", ErrFrame, err)
			return
		}
		c.dispatch(&m)
	}
}

// readFrame reads one Content-Length framed body.
func readFrame(tp *textproto.Reader, r *bufio.Reader) ([]byte, error) {
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Content-Length")))
	if err != nil || n < 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: Content-Length %q", ErrFrame, h.Get("Content-Length"))
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	return body, err
}

// readLine reads one line (without its end) of at most maxFrame bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxFrame {
			return nil, fmt.Errorf("%w: a line over %d bytes", ErrFrame, maxFrame)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// dispatch routes one message: a response to its call, a request to
// onRequest (answered at once), a notification to onNotify.
func (c *lspConn) dispatch(m *envelope) {
	switch {
	case m.Method == "" && len(m.ID) > 0:
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			return // not one of ours
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch == nil {
			return
		}
		if m.Error != nil {
			ch <- response{err: m.Error}
		} else {
			ch <- response{result: m.Result}
		}
	case len(m.ID) > 0:
		result := c.onRequest(m.Method, m.Params)
		_ = c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	default:
		c.onNotify(m.Method, m.Params)
	}
}

// finish fails every pending call and closes done.
func (c *lspConn) finish(err error) {
	if err == nil || errors.Is(err, io.EOF) {
		err = ErrConnClosed
	} else {
		err = fmt.Errorf("%w: %v", ErrConnClosed, err)
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		ch <- response{err: err}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}
