package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// maxHeaderLine bounds one header line, so a server that writes an endless
// line without a newline cannot exhaust memory.
const maxHeaderLine = 4096

// deadliner is implemented by *os.File pipes and net.Conn: the stream uses
// it to bound writes to a server that stopped reading.
type deadliner interface {
	SetWriteDeadline(t time.Time) error
}

// frameStream is a jsonrpc2.Stream with Content-Length framing, a maximum
// frame size, and bounded writes. It replaces jsonrpc2.NewStream, whose
// reader allocates whatever size a server announces and whose writer
// emits "params": null for requests without parameters.
//
// The connection's reader uses readIncoming, which decodes a frame once
// with encoding/json into an incoming message whose raw params and result
// go straight to their consumer; Read (the jsonrpc2.Stream method) builds
// jsonrpc2 messages from it for other users. Read and readIncoming are
// called by one goroutine at a time; so are the writes. Every frame is read
// into a fresh buffer that is never reused, so the raw JSON handed out is
// owned by its receiver.
type frameStream struct {
	rwc          io.ReadWriteCloser
	in           *bufio.Reader
	out          io.Writer // rwc, or the write end when reads and writes differ
	maxSize      int64
	writeTimeout time.Duration
	wbuf         []byte     // writeRequest's buffer, reused: writes are made one at a time
	now          *nowWriter // out, written without waiting; nil when it cannot be
	// stray, when set, is given each line read where a header was expected
	// that is not an LSP header (Content-Length, Content-Type): text a
	// server printed on stdout, such as a usage error before it exits.
	stray func(line string)
}

func newFrameStream(rwc io.ReadWriteCloser, maxSize int64, writeTimeout time.Duration) *frameStream {
	return &frameStream{
		rwc:          rwc,
		in:           bufio.NewReaderSize(rwc, 64<<10),
		out:          rwc,
		maxSize:      maxSize,
		writeTimeout: writeTimeout,
	}
}

// incoming is one message from the server, decoded once.
type incoming struct {
	id     jsonrpc2.ID
	hasID  bool
	method string
	params json.RawMessage // "null" when absent
	result json.RawMessage // "null" when absent
	err    *jsonrpc2.Error
}

// isCall, isNotification and isResponse classify the message.
func (m *incoming) isCall() bool         { return m.method != "" && m.hasID }
func (m *incoming) isNotification() bool { return m.method != "" && !m.hasID }

// readIncoming reads and decodes one frame. Any error (malformed header,
// oversized frame, invalid JSON) ends the connection: the stream cannot
// resynchronise.
func (s *frameStream) readIncoming() (*incoming, int64, error) {
	length, total, err := s.readHeader()
	if err != nil {
		return nil, total, err
	}
	data := make([]byte, length)
	if _, err := io.ReadFull(s.in, data); err != nil {
		return nil, total, fmt.Errorf("%w: reading %d byte body: %v", ErrProtocol, length, err)
	}
	total += length
	msg, err := decode(data)
	if err != nil {
		return nil, total, fmt.Errorf("%w: %v: %q", ErrProtocol, err, preview(data))
	}
	return msg, total, nil
}

// envelope is a JSON-RPC message as it arrives.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// decode turns a frame into an incoming message with one encoding/json
// pass (jsonrpc2.DecodeMessage builds a decoder per frame, and re-decodes
// results for their callers).
func decode(data []byte) (*incoming, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, err
	}
	m := &incoming{method: env.Method, params: rawOrNull(env.Params), result: rawOrNull(env.Result), err: env.Error}
	m.hasID = len(env.ID) > 0 && string(env.ID) != "null"
	if m.hasID {
		if err := m.id.UnmarshalJSON(env.ID); err != nil {
			return nil, fmt.Errorf("invalid id %s", env.ID)
		}
	}
	if env.Method == "" && !m.hasID {
		return nil, errors.New("a response without an id")
	}
	return m, nil
}

// Read reads one frame as a jsonrpc2 message (the jsonrpc2.Stream method).
func (s *frameStream) Read(context.Context) (jsonrpc2.Message, int64, error) {
	m, n, err := s.readIncoming()
	if err != nil {
		return nil, n, err
	}
	switch {
	case m.isCall():
		msg, err := jsonrpc2.NewCall(m.id, m.method, m.params)
		return msg, n, err
	case m.isNotification():
		msg, err := jsonrpc2.NewNotification(m.method, m.params)
		return msg, n, err
	case m.err != nil:
		msg, err := jsonrpc2.NewResponse(m.id, nil, m.err)
		return msg, n, err
	}
	msg, err := jsonrpc2.NewResponse(m.id, m.result, nil)
	return msg, n, err
}

func rawOrNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

func (s *frameStream) readHeader() (length, total int64, err error) {
	length = -1
	for {
		line, err := s.readLine()
		total += int64(len(line))
		if err != nil {
			return 0, total, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, total, fmt.Errorf("%w: invalid header line %q", ErrProtocol, preview([]byte(line)))
		}
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "Content-Length") {
			if s.stray != nil && !strings.EqualFold(name, "Content-Type") {
				s.stray(line)
			}
			continue
		}
		n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if perr != nil || n <= 0 {
			return 0, total, fmt.Errorf("%w: invalid Content-Length %q", ErrProtocol, value)
		}
		if n > s.maxSize {
			return 0, total, fmt.Errorf("%w: frame of %d bytes exceeds the limit of %d", ErrMessageTooLarge, n, s.maxSize)
		}
		length = n
	}
	if length < 0 {
		return 0, total, fmt.Errorf("%w: missing Content-Length header", ErrProtocol)
	}
	return length, total, nil
}

// readLine reads one header line of at most maxHeaderLine bytes.
func (s *frameStream) readLine() (string, error) {
	var buf []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxHeaderLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", ErrProtocol, maxHeaderLine)
		}
		if err == nil {
			return string(buf), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && len(buf) == 0 {
				return "", io.EOF
			}
			return "", fmt.Errorf("reading header: %w", err)
		}
	}
}

// Write writes one frame, bounded by the write timeout (or the context's
// deadline if sooner). A failed or partial write leaves the stream
// unusable; the connection treats it as fatal.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := encodeMessage(msg)
	if err != nil {
		return 0, err
	}
	return s.writeFrame(ctx, data)
}

// writeFrame writes data as one frame.
func (s *frameStream) writeFrame(ctx context.Context, data []byte) (int64, error) {
	frame := appendHeader(make([]byte, 0, frameRoom+len(data)), len(data))
	return s.writeRaw(ctx, append(frame, data...))
}

// appendHeader appends the header of a frame whose body is n bytes.
func appendHeader(b []byte, n int) []byte {
	b = strconv.AppendInt(append(b, "Content-Length: "...), int64(n), 10)
	return append(b, "\r\n\r\n"...)
}

// writeRaw writes frame, header included.
func (s *frameStream) writeRaw(ctx context.Context, frame []byte) (int64, error) {
	if d, ok := s.out.(deadliner); ok {
		deadline := time.Now().Add(s.writeTimeout)
		if cd, ok := ctx.Deadline(); ok && cd.Before(deadline) && cd.After(time.Now()) {
			deadline = cd
		}
		_ = d.SetWriteDeadline(deadline)
	}
	n, err := s.out.Write(frame)
	if err != nil {
		return int64(n), fmt.Errorf("%w: %w", ErrWriteFailed, err)
	}
	return int64(n), nil
}

// Close closes the underlying connection, unblocking Read and Write.
func (s *frameStream) Close() error { return s.rwc.Close() }

// wireMessage is the JSON-RPC envelope we write ourselves: params is left
// out entirely when a request has none (servers reject "params": null), and
// the id is never omitted (0 is a valid id).
type wireMessage struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *jsonrpc2.ID     `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  *json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error  `json:"error,omitempty"`
}

// frameRoom is the room a frame's body leaves before it for the header.
const frameRoom = len("Content-Length: \r\n\r\n") + 20

// maxKeptBuffer bounds the write buffer a stream keeps for the next frame.
const maxKeptBuffer = 64 << 10

// writeRequest writes a call (id not nil) or a notification as one frame,
// built in the stream's buffer (a frame is not retained once written).
func (s *frameStream) writeRequest(ctx context.Context, id *jsonrpc2.ID, method string, params wireParams) (int64, error) {
	frame, err := s.requestFrame(id, method, params)
	if err != nil {
		return 0, err
	}
	return s.writeRaw(ctx, frame)
}

// requestFrame is requestFrame in the stream's buffer, which it keeps for
// the next frame unless it grew past maxKeptBuffer; the frame is valid
// until then.
func (s *frameStream) requestFrame(id *jsonrpc2.ID, method string, params wireParams) ([]byte, error) {
	buf, start, err := requestFrame(s.wbuf[:0], id, method, params)
	if err != nil {
		return nil, err
	}
	if cap(buf) <= maxKeptBuffer {
		s.wbuf = buf[:0]
	}
	return buf[start:], nil
}

// encodeResponse encodes the answer to a server request.
func encodeResponse(id jsonrpc2.ID, result json.RawMessage, err error) ([]byte, error) {
	w := wireMessage{JSONRPC: "2.0", ID: &id}
	if err != nil {
		w.Error = toWireError(err)
	} else {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		w.Result = &result
	}
	return json.Marshal(w)
}

func encodeMessage(msg jsonrpc2.Message) ([]byte, error) {
	w := wireMessage{JSONRPC: "2.0"}
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		id := m.ID()
		w.ID, w.Method, w.Params = &id, m.Method(), omitNull(m.Params())
	case *jsonrpc2.Notification:
		w.Method, w.Params = m.Method(), omitNull(m.Params())
	case *jsonrpc2.Response:
		id := m.ID()
		w.ID = &id
		if err := m.Err(); err != nil {
			w.Error = toWireError(err)
		} else {
			res := m.Result()
			if len(res) == 0 {
				res = json.RawMessage("null")
			}
			w.Result = &res
		}
	default:
		return nil, fmt.Errorf("transport: cannot encode %T", msg)
	}
	return json.Marshal(w)
}

func omitNull(p json.RawMessage) json.RawMessage {
	if len(p) == 0 || bytes.Equal(bytes.TrimSpace(p), []byte("null")) {
		return nil
	}
	return p
}

func toWireError(err error) *jsonrpc2.Error {
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return we
	}
	return &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: err.Error()}
}

// preview returns at most 80 bytes of b for error messages.
func preview(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}
