package messages

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors carried in reply messages. Match them with errors.Is.
var (
	// ErrOverloaded: the server already has its maximum number of requests in
	// flight; the request was not sent.
	ErrOverloaded = errors.New("agentlsp: server overloaded: too many requests in flight")
	// ErrServerBroken: the server cannot be started or crashed too often; see
	// the *ServerError for the reason and the last lines of its stderr.
	ErrServerBroken = errors.New("agentlsp: server broken")
	// ErrServerCrashed: the server process ended while the request was in flight.
	ErrServerCrashed = errors.New("agentlsp: server crashed")
	// ErrStartupTimeout: the server did not finish the initialize handshake in time.
	ErrStartupTimeout = errors.New("agentlsp: server startup timed out")
	// ErrRequestTimeout: the server did not answer a request in time.
	ErrRequestTimeout = errors.New("agentlsp: request timed out")
	// ErrCanceled: the caller cancelled the request.
	ErrCanceled = errors.New("agentlsp: request cancelled")
	// ErrShutdown: the server or the runtime is shutting down.
	ErrShutdown = errors.New("agentlsp: shutting down")
	// ErrNotOpen: the document is not open on that server.
	ErrNotOpen = errors.New("agentlsp: document not open")
	// ErrUnsupported: the server does not offer the requested feature.
	ErrUnsupported = errors.New("agentlsp: not supported by the server")
	// ErrSpawn: a server's command cannot be started (*SpawnError).
	ErrSpawn = errors.New("agentlsp: cannot start the server")
	// ErrReconfiguring: the server is stopped while its configuration
	// files keep changing; it starts again once they are quiet.
	ErrReconfiguring = errors.New("agentlsp: the server's configuration is changing")
	// ErrUnknownMessage: the actor asked does not take messages of that
	// type (or was sent a nil one); see *Refused.
	ErrUnknownMessage = errors.New("agentlsp: message not handled")
)

// SpawnError says that a server's command cannot be started (missing,
// not executable) and how to fix it. It matches ErrSpawn and, through
// Unwrap, its cause (for example exec.ErrNotFound).
type SpawnError struct {
	Command string // the command, as configured: "gopls"
	Err     error  // the cause, e.g. the *exec.Error from exec.Cmd.Start
	Hint    string // what to do, e.g. "install it: go install golang.org/x/tools/gopls@latest"
}

// Error renders `agentlsp: cannot start "gopls": <cause>; <hint>`, leaving
// out the cause or hint when empty, and the command name the cause repeats.
func (e *SpawnError) Error() string {
	msg := fmt.Sprintf("agentlsp: cannot start %q", e.Command)
	if e.Err != nil {
		cause := e.Err.Error()
		cause = strings.TrimPrefix(cause, "exec: "+strconv.Quote(e.Command)+": ")
		msg += ": " + cause
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns the cause.
func (e *SpawnError) Unwrap() error { return e.Err }

// Is reports whether target is ErrSpawn.
func (e *SpawnError) Is(target error) bool { return target == ErrSpawn }

// ServerError describes why a request to a server failed: which server, and
// the last lines its process wrote to stderr. It wraps one of the sentinel
// errors above (Kind) and the underlying cause.
type ServerError struct {
	ServerID string
	Root     string
	Kind     error    // a sentinel: ErrServerBroken, ErrServerCrashed, ...
	Cause    string   // the underlying cause, as text
	Hint     string   // what to do about it (for example how to install the server)
	Stderr   []string // last lines of the server's stderr, oldest first
}

// Error renders the error with its cause, hint and stderr tail.
func (e *ServerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s (root %s)", e.Kind, e.ServerID, e.Root)
	if e.Cause != "" {
		fmt.Fprintf(&b, ": %s", e.Cause)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "; %s", e.Hint)
	}
	if len(e.Stderr) > 0 {
		fmt.Fprintf(&b, "; last stderr lines:\n  %s", strings.Join(e.Stderr, "\n  "))
	}
	return b.String()
}

// Unwrap returns the sentinel kind, so errors.Is(err, ErrServerBroken) works.
func (e *ServerError) Unwrap() error { return e.Kind }

// RPCError is an error response from a language server.
type RPCError struct {
	Code    int64
	Message string
}

// Error renders the error code and message.
func (e *RPCError) Error() string {
	return fmt.Sprintf("agentlsp: server error %d: %s", e.Code, e.Message)
}

// CodeContentModified is the LSP error code for a result invalidated by a
// concurrent change.
const CodeContentModified = -32801
