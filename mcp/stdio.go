package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageSize bounds one line of input of a StdioTransport.
const DefaultMaxMessageSize = 16 << 20

// StdioTransport is an sdk.Transport over newline-delimited JSON-RPC 2.0,
// the MCP stdio transport, that survives careless clients: a line that is
// not a valid JSON-RPC 2.0 message (not JSON, not an object, no or another
// "jsonrpc", an id that is an object, an array or a boolean, a batch, a line
// over MaxMessageSize) is answered with a JSON-RPC error, -32700 (parse
// error) or -32600 (invalid request), carrying the message's id when it can
// be read (for a line over the limit: in its first 4 KiB) and null
// otherwise, and the connection goes on. Only valid
// messages reach the SDK. (MCP dropped JSON-RPC batches in 2025-06-18: each
// request of a batch is answered -32600 with its id.)
//
// Its Connection starts one goroutine, the reader, which lives until In
// reports EOF or an error, or until the connection is closed and its next
// line has been read. Close does not close In or Out: their owner does, and
// closing In (or the end of the process) is what ends a reader blocked on
// it. Writes to Out, the SDK's and the reader's error answers, are
// serialized, one whole line each.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxMessageSize bounds one line in bytes, end of line excluded
	// (default DefaultMaxMessageSize). A longer line is answered -32600 and
	// skipped without being held in memory.
	MaxMessageSize int
	// Logger receives a warning for every rejected line (nil: none).
	Logger *slog.Logger
}

// NewStdioTransport returns a transport reading messages from in and
// writing them to out, with the default limits.
func NewStdioTransport(in io.Reader, out io.Writer) *StdioTransport {
	return &StdioTransport{In: in, Out: out}
}

// Connect starts the connection's reader and returns the connection. It
// does not block. Call it once.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	limit := t.MaxMessageSize
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &stdioConn{out: t.Out, log: log, limit: limit,
		incoming: make(chan jsonrpc.Message), ended: make(chan struct{}), closed: make(chan struct{})}
	// The reader lives until In ends or fails, or until the connection is
	// closed and its next line has been read (see StdioTransport).
	go c.readLoop(newLineReader(t.In, limit))
	return c, nil
}

// stdioConn is the sdk.Connection of a StdioTransport. Safe for concurrent
// use, as the SDK requires.
type stdioConn struct {
	out      io.Writer
	log      *slog.Logger
	limit    int
	incoming chan jsonrpc.Message // from the reader to Read, unbuffered
	ended    chan struct{}        // closed when the reader has returned
	endErr   error                // why it did (nil: EOF); valid once ended is closed
	closed   chan struct{}        // closed by Close

	closeOnce sync.Once
	shut      atomic.Bool // Close was called: nothing more is written
	writeMu   sync.Mutex  // one line at a time on out
}

// Read returns the next valid message. It blocks until one arrives, the
// input ends (io.EOF, or the read error), ctx ends, or Close is called.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.ended:
		if c.endErr != nil {
			return nil, c.endErr
		}
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line. It blocks while Out does.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// Close makes Read return io.EOF and Write fail. It does not block and may
// be called more than once.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.shut.Store(true)
		close(c.closed)
	})
	return nil
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }

// writeLine writes data and a newline in one write, unless the connection
// is closed. data is given up: every caller encodes it for this write, so
// the newline goes in its spare room (encodeMessage leaves some) rather
// than in a copy of the whole message.
func (c *stdioConn) writeLine(data []byte) error {
	line := append(data, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.shut.Load() {
		return sdk.ErrConnectionClosed
	}
	_, err := c.out.Write(line)
	return err
}

// readLoop is the reader: it reads lines, answers the invalid ones itself
// and hands the valid ones to Read, until the input ends, a write of an
// answer fails or the connection is closed. Read sees why once ended is
// closed (every message before was taken: incoming is unbuffered).
func (c *stdioConn) readLoop(lr *lineReader) {
	defer close(c.ended)
	for {
		line, tooLong, err := lr.next()
		if !c.take(line, tooLong) {
			return
		}
		if err != nil {
			if err != io.EOF {
				c.endErr = err
			}
			return
		}
	}
}

// take answers or delivers one line; false when the reader should stop.
func (c *stdioConn) take(line []byte, tooLong bool) bool {
	if tooLong {
		return c.answer(oversized(c.limit, line))
	}
	msg, answer := decodeLine(line)
	switch {
	case answer != nil:
		return c.answer(answer)
	case msg == nil: // a line of white space
		return true
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// answer writes the error answer of a rejected line, if it has one. It
// returns false if the write failed (the client is gone: the failure ends
// the reader) or the connection is closed.
func (c *stdioConn) answer(a *rejection) bool {
	c.log.Warn("mcp: rejected an invalid message", "code", a.code, "reason", a.why)
	if len(a.data) == 0 {
		return true
	}
	err := c.writeLine(a.data)
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		c.endErr = err
	}
	return err == nil
}

// lineReader reads lines of at most max bytes (end of line excluded).
// Longer lines are skipped up to their end without being kept.
type lineReader struct {
	br  *bufio.Reader
	max int
	err error // the input's error, returned once the last line is out
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// headMax bounds what is kept of a line over the limit: its head, where
// its id is looked for.
const headMax = 4 << 10

// next returns the next line without its "\n" or "\r\n" (a fresh slice the
// caller owns), or tooLong and the line's first bytes (at most headMax) for
// a line over the limit. err is the end of the input (io.EOF) or a read
// error: the line returned with it, if any, is the last one.
func (r *lineReader) next() (line []byte, tooLong bool, err error) {
	if r.err != nil {
		return nil, false, r.err
	}
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case !tooLong && len(line)+len(chunk) <= r.max+2:
			line = append(line, chunk...)
		case !tooLong:
			tooLong = true
			if len(line) < headMax {
				line = append(line, chunk[:min(len(chunk), headMax-len(line))]...)
			}
			line = bytes.Clone(line[:min(len(line), headMax)])
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		r.err = err
		if !tooLong {
			line = trimEOL(line)
			if len(line) > r.max {
				tooLong, line = true, bytes.Clone(line[:min(len(line), headMax)])
			}
		}
		return line, tooLong, err
	}
}

// trimEOL removes a final "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n > 1 && b[n-2] == '\r' {
			b = b[:n-2]
		}
	}
	return b
}
