package fakelsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxFrameBytes bounds the body of a frame read from the client.
const maxFrameBytes = 256 << 20

// JSON-RPC and LSP error codes used by the fake.
const (
	codeParseError       = -32700
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeRequestCancelled = -32800
	codeContentModified  = -32801
)

var (
	errFrameHeader = errors.New("fakelsp: malformed frame header")
	errFrameSize   = errors.New("fakelsp: frame too large")
)

// message is any JSON-RPC 2.0 message, in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// rpcError is the error object of a JSON-RPC response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// hasID reports whether m carries a non-null id.
func (m *message) hasID() bool {
	return len(m.ID) > 0 && string(m.ID) != "null"
}

// kind classifies m as "request", "notification" or "response".
func (m *message) kind() string {
	switch {
	case m.Method != "" && m.hasID():
		return "request"
	case m.Method != "":
		return "notification"
	default:
		return "response"
	}
}

// idKey turns a raw id into a map key, so that ids differing only in
// white space match.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, id); err != nil {
		return string(id)
	}
	return b.String()
}

// readFrame reads one Content-Length framed body. It returns io.EOF only
// when the stream ends cleanly between frames.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// readHeader reads header lines up to the empty line and returns the
// Content-Length.
func readHeader(r *bufio.Reader) (int, error) {
	length, first := -1, true
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && (!first || line != "") {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		first = false
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, fmt.Errorf("%w: %q", errFrameHeader, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%w: %q", errFrameHeader, line)
			}
			length = n
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: no Content-Length", errFrameHeader)
	}
	if length > maxFrameBytes {
		return 0, fmt.Errorf("%w: %d bytes", errFrameSize, length)
	}
	return length, nil
}

// frameWriter writes whole frames, one Write call per frame. It is safe for
// concurrent use; a write blocks while the peer does not read.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// writeFrame writes body with its Content-Length header.
func (fw *frameWriter) writeFrame(body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = fmt.Appendf(buf, "Content-Length: %d\r\n\r\n", len(body))
	buf = append(buf, body...)
	fw.mu.Lock()
	defer fw.mu.Unlock()
	_, err := fw.w.Write(buf)
	return err
}

// mustJSON marshals v, which is always a value the fake built itself.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Errorf("fakelsp: marshal %T: %w", v, err))
	}
	return b
}

// responseBody encodes a response to id: an error when rerr is set,
// otherwise result (JSON null when nil).
func responseBody(id json.RawMessage, result any, rerr *rpcError) []byte {
	m := message{JSONRPC: "2.0", ID: id}
	switch {
	case rerr != nil:
		m.Error = mustJSON(rerr)
	case result == nil:
		m.Result = json.RawMessage("null")
	default:
		m.Result = mustJSON(result)
	}
	return mustJSON(&m)
}
