// Package transport is one language-server connection: it spawns the server
// process in its own process group (or dials a server on a TCP or unix
// socket), keeps the last lines of its stderr (with any line of stdout read
// where a header was expected that is not an LSP header, marked "stdout: ":
// a command that is not a language server writes its usage error there),
// and speaks JSON-RPC 2.0 with Content-Length framing. It answers the
// server's own requests
// (workspace/configuration, client/registerCapability, ...) and hands every
// notification to a callback. It knows nothing of actors.
//
// A Conn owns these goroutines, all joined before Done is closed:
//   - the reader, which decodes every frame once and completes the call it
//     answers from a table of pending calls, answers server requests and
//     passes notifications on, until the stream fails or is closed;
//   - the writer, which sends queued notifications, calls and replies in
//     order (a didChange queued before a request reaches the server first),
//     until the connection ends;
//   - the monitor, which notices the end (process exit, protocol error,
//     Kill, Shutdown), tears everything down and closes Done;
//   - for a spawned process: its stderr reader and its waiter.
//
// A call costs no goroutine: it waits in the table, and its context is
// watched with context.AfterFunc, whose function runs only if the context
// ends first (it removes the call, sends $/cancelRequest, answers the
// caller). Nothing here blocks on the server forever: writes time out,
// calls end when their context does or when the connection ends, and the
// process group is killed when the connection ends.
//
// go.lsp.dev/jsonrpc2 (v0.10.0) provides the message vocabulary: ID, the
// Error type and its codes, and the Stream interface, which frameStream
// implements. Its Conn and its stream are not used, for reasons measured
// here (BenchmarkFramingCall, docs/BENCHMARKS.md): its reader allocates
// whatever frame size a server announces, its writer emits "params": null
// (servers reject it on shutdown/exit), its decoder is built per frame and
// a call's result is decoded a second time for the caller (69 KB and 46 µs
// per small call against 4 KB and 17 µs with one encoding/json pass), and
// every call needed its own waiting goroutine and a context value to keep
// calls ordered with notifications.
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
