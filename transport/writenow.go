package transport

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// maxWriteNow bounds the params a sender writes itself: a larger message
// (a big file's didOpen) would mostly not fit in the pipe at once, and its
// rest would be copied for the writer; it goes to the writer whole.
const maxWriteNow = 32 << 10

// writeNow writes a request (id not nil) or a notification on the
// caller's goroutine, when the outbox gives it the turn (nothing queued,
// nobody writing): a frame then reaches the server without waking the
// writer goroutine. What the server does not take at once is queued
// before anything else, for the writer to finish. live, if not nil, is
// asked once the turn is taken: false drops the message (a call abandoned
// meanwhile). False: the outbox is busy, or the output is not a
// descriptor that can be written without waiting; queue the message.
func (c *Conn) writeNow(id *jsonrpc2.ID, method string, params wireParams, live func() bool) bool {
	if c.stream.now == nil || len(params.raw) > maxWriteNow {
		return false
	}
	return c.out.inline(func() *op {
		if live != nil && !live() {
			return nil
		}
		rest, err := c.stream.writeRequestNow(id, method, params)
		if err != nil {
			c.endWrite(method, err)
			return nil
		}
		if rest == nil {
			return nil
		}
		return &op{
			run: func() {
				if _, err := c.stream.writeRaw(c.life, rest); err != nil {
					c.endWrite(method, err)
				}
			},
			abort: func(error) {},
		}
	})
}

// writeRequestNow writes a request's frame as far as the output takes it
// at once: rest is what it did not take (a copy), nil when it took all.
func (s *frameStream) writeRequestNow(id *jsonrpc2.ID, method string, params wireParams) (rest []byte, err error) {
	frame, err := s.requestFrame(id, method, params)
	if err != nil {
		return nil, err
	}
	n, err := s.now.write(frame)
	if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		// The deadline of an earlier blocking write, passed: clear it.
		if d, ok := s.out.(deadliner); ok {
			_ = d.SetWriteDeadline(time.Time{})
		}
		n, err = s.now.write(frame)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWriteFailed, err)
	}
	if n < len(frame) {
		return slices.Clone(frame[n:]), nil
	}
	return nil, nil
}
