package agentlsp

import (
	"errors"

	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/textpos"
)

// Position and Range are LSP positions and ranges: 0-based, UTF-16 code
// units (the one position type of agentlsp; see messages.Position).
type (
	Position = messages.Position
	Range    = messages.Range
)

// Errors of the embedding API. Errors from the actors (messages.ErrServerBroken,
// messages.ErrOutsideWorkspace, ...) reach callers unchanged; match them
// with errors.Is.
var (
	// ErrShutdown is returned by calls made during or after Shutdown.
	ErrShutdown = messages.ErrShutdown
	// ErrNoResult: no server that serves the file could answer.
	ErrNoResult = results.ErrNoResult
	// ErrFileTooLarge: the file is larger than 16 MiB.
	ErrFileTooLarge = messages.ErrFileTooLarge
	// ErrNotText: the file or text is not valid UTF-8, or holds a NUL byte.
	ErrNotText = messages.ErrNotText
	// ErrBadResult: a server's result has a shape agentlsp does not know.
	ErrBadResult = results.ErrBadResult
	// ErrPastEnd: a position past the end of its line or of the file.
	ErrPastEnd = textpos.ErrPastEnd
	// ErrDaemonLost: a runtime of Dial whose daemon went away had none
	// attached when the call gave up (its context ended); the error says
	// what attaching again met.
	ErrDaemonLost = daemon.ErrDaemonLost
	// ErrSessionEnded: an Edit of a session after its End, which would
	// have dropped the text as the call returned; Runtime.Session begins
	// the session again.
	ErrSessionEnded = errors.New("agentlsp: the session has ended (Runtime.Session begins it again)")
)
