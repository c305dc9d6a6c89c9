// Package transport is one language-server connection: it spawns the server
// process in its own process group (or dials a server on a TCP or unix
// socket), keeps the last lines of its stderr, and speaks JSON-RPC 2.0 with
// Content-Length framing over go.lsp.dev/jsonrpc2. It answers the server's
// own requests (workspace/configuration, client/registerCapability, ...)
// and hands every notification to a callback. It knows nothing of actors.
//
// A Conn owns these goroutines, all joined before Done is closed:
//   - the jsonrpc2 read loop, until the stream closes;
//   - the writer, which sends queued notifications, calls and replies in
//     order, until the connection ends;
//   - one waiter per call in flight, until its answer, cancellation or the
//     end of the connection;
//   - the monitor, which notices the end (process exit, protocol error,
//     Kill, Shutdown), tears everything down and closes Done;
//   - for a spawned process: its stderr reader and its waiter.
//
// Nothing here blocks on the server forever: writes time out, calls end
// when their context does or when the connection ends, and the process
// group is killed when the connection ends.
package transport

import (
	"errors"
)

// Errors of this package. The connection's end cause (Err) wraps one of
// them.
var (
	// ErrProtocol: the server wrote something that is not a JSON-RPC frame.
	ErrProtocol = errors.New("transport: protocol error")
	// ErrMessageTooLarge: the server announced a frame above the limit.
	ErrMessageTooLarge = errors.New("transport: message too large")
	// ErrWriteFailed: a write to the server failed or timed out (a server
	// that stopped reading its input).
	ErrWriteFailed = errors.New("transport: write to server failed")
	// ErrExited: the server process exited.
	ErrExited = errors.New("transport: server process exited")
	// ErrClosed: the connection is closed; nothing more can be sent.
	ErrClosed = errors.New("transport: connection closed")
	// ErrQueueFull: too many messages wait to be written to a server that
	// does not read them.
	ErrQueueFull = errors.New("transport: outgoing queue full")
)
