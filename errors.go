package agentlsp

import (
	"errors"

	"github.com/agentlsp/agentlsp/messages"
)

// Errors of the embedding API. Errors from the actors (messages.ErrServerBroken,
// messages.ErrOutsideWorkspace, ...) reach callers unchanged; match them
// with errors.Is.
var (
	// ErrShutdown is returned by calls made during or after Shutdown.
	ErrShutdown = messages.ErrShutdown
	// ErrNoResult: no server that serves the file could answer.
	ErrNoResult = errors.New("agentlsp: no server answered")
	// ErrFileTooLarge: the file is larger than MaxFileSize.
	ErrFileTooLarge = errors.New("agentlsp: file too large")
	// ErrNotText: the file is binary or not valid UTF-8.
	ErrNotText = errors.New("agentlsp: not a UTF-8 text file")
	// ErrBadResult: a server's result has a shape agentlsp does not know.
	ErrBadResult = errors.New("agentlsp: unexpected result from the language server")
)
