package messages

import (
	"encoding/json"
	"errors"
	"time"
)

// Errors about the files agents name. The router answers with a
// *PathError wrapping one of them.
var (
	// ErrOutsideWorkspace: the path (after resolving .. and symlinks) is not
	// under the workspace.
	ErrOutsideWorkspace = errors.New("agentlsp: path outside the workspace")
	// ErrFileNotFound: no file at that path.
	ErrFileNotFound = errors.New("agentlsp: file does not exist")
	// ErrIsDirectory: a directory where a file was expected.
	ErrIsDirectory = errors.New("agentlsp: is a directory, not a file")
	// ErrNoServer: no configured server handles the file.
	ErrNoServer = errors.New("agentlsp: no language server for this file")
	// ErrInvalidPath: the path cannot name a file (empty, too long, a NUL byte).
	ErrInvalidPath = errors.New("agentlsp: invalid path")
	// ErrFileTooLarge: the file is larger than agentlsp reads (16 MiB).
	ErrFileTooLarge = errors.New("agentlsp: file too large")
	// ErrNotText: the file or text is not valid UTF-8, or holds a NUL byte.
	ErrNotText = errors.New("agentlsp: not a UTF-8 text file")
)

// PathError says what is wrong with a path an agent gave.
type PathError struct {
	Path   string
	Kind   error  // ErrOutsideWorkspace, ErrFileNotFound, ErrIsDirectory, ErrNoServer, ErrInvalidPath
	Detail string // e.g. the workspace, or the configured extensions
}

// Error renders the kind, the path and the detail.
func (e *PathError) Error() string {
	s := e.Kind.Error() + ": " + e.Path
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the kind.
func (e *PathError) Unwrap() error { return e.Kind }

// ServerKey names one server actor: a server id and a project root.
type ServerKey struct {
	ServerID string
	Root     string
}

// Target is one server that serves a file.
type Target struct {
	ServerKey
	LanguageID string
}

// Resolve asks the router which servers serve a file; the reply is
// Resolved. It starts nothing.
type Resolve struct {
	Path string
}

// Resolved answers Resolve: the cleaned absolute path, its URI and targets.
type Resolved struct {
	Path    string
	URI     string
	Targets []Target
	Err     error
}

// SyncAction is what a SyncDocument does.
type SyncAction int

// The document actions.
const (
	// SyncCurrent opens the file for the session if needed and makes sure
	// its servers have its current text: the text they have unless the
	// disk changed since it was set, else the disk's.
	SyncCurrent SyncAction = iota + 1
	// SyncChange gives the servers Text, an agent's edit (not on disk).
	SyncChange
	// SyncSave sends didSave.
	SyncSave
	// SyncClose drops the session's reference.
	SyncClose
)

// SyncDocument opens, changes, saves or closes a file on every server that
// serves it, on behalf of a session. Opens are reference counted per
// session: the servers close the document when the last session closes
// it. The router holds the one record of each document's text. With
// Fresh, servers whose text did not change are asked to diagnose the
// document again when anything changed on them since (TouchDocument), so
// a wait for the versions in the reply is a wait for fresh diagnostics.
// The reply is FileSynced.
type SyncDocument struct {
	Session string
	Path    string
	Action  SyncAction
	Text    string // for SyncChange
	Fresh   bool
	// Create lets a SyncChange's file be missing on disk: the document
	// exists in memory (an overlay) until SyncSave writes it.
	Create bool
}

// FileSynced answers SyncDocument: the version each server now has and,
// for SyncCurrent and SyncChange, the text they have.
type FileSynced struct {
	Path    string
	URI     string
	Servers []ServerVersion
	Text    string
	Err     error // a path error, a request without Method, or nil (per-server errors are in Servers)
}

// EndSession drops every reference a session holds on open documents
// (closing those nobody else holds). The reply is SessionEnded.
type EndSession struct {
	Session string
}

// KeepOpen asks the router to open files on their servers because an
// answer named them (a definition's targets), for no session: a server
// answers about a declaration faster when its file is open. Each server
// keeps at most its definition's OpenTargets such files, the least recently
// named closed first, and all of them are closed when no session holds a
// document on it any more. Paths outside the workspace, missing files and
// files of servers whose OpenTargets is 0 are ignored. No reply.
type KeepOpen struct {
	Paths []string
}

// SessionEnded answers EndSession: how many documents it released.
type SessionEnded struct {
	Session  string
	Released int
}

// ServerVersion is one server's state of a document after a sync.
type ServerVersion struct {
	ServerKey
	Version int32
	Changed bool
	SentAt  time.Time
	// Barrier, for a document not touched, is the touch that stands for
	// its touch; SentAt is then when that touch was sent.
	Barrier *Barrier
	// PullView, for a document pulled again instead of touched, is the
	// view of the server the pull was asked at: only a pull asked at that
	// view or later describes the document (DocumentSynced.PullView).
	PullView uint64
	Err      error
}

// FileRequest sends an LSP request about a file to every server that
// serves it; the reply is FileResponse. ID is chosen by the caller; Cancel
// with that ID, from the same sender, abandons it.
//
// With Session, the request is about the file as it is now, in one step:
// the file is opened for the session and brought up to date with the disk
// (as SyncDocument SyncCurrent does), Params are completed with the
// document ("textDocument": {"uri": ...}) and At ("position", checked
// against the document's text first: an error wrapping
// textpos.ErrPastEnd when past its end), and the request follows the text
// to each server. Params then hold only the method's other parameters (a
// JSON object, or nothing), and the reply names the document (URI).
type FileRequest struct {
	ID      uint64
	Path    string
	Method  string
	Params  json.RawMessage
	Timeout time.Duration
	Session string
	At      *Position
}

// WorkspaceRequest sends an LSP request to every server of the workspace:
// those running and those the workspace's root markers imply (started as
// needed, bounded); with Path, only the servers of that file. The reply is
// FileResponse, where servers still starting when the answer was due are
// marked Starting.
type WorkspaceRequest struct {
	ID      uint64
	Method  string
	Params  json.RawMessage
	Timeout time.Duration
	Path    string
	// Session, with Path, opens the file for that session first, as a
	// FileRequest with Session does: tsserver has no project before one of
	// its files is open.
	Session string
	// All asks the implied servers whose command is not installed too (a
	// probe of the servers, which reports them broken with the cause);
	// otherwise they are left out.
	All bool
}

// FileResponse answers FileRequest and WorkspaceRequest with one result
// per server asked.
type FileResponse struct {
	ID      uint64
	URI     string // the document's, for a FileRequest with Session
	Results []ServerResult
	Err     error // a path error, a request without Method, or nil
}

// ServerResult is one server's answer.
type ServerResult struct {
	ServerKey
	Result   json.RawMessage
	Err      error
	Indexing bool
	Starting bool          // the server was not running yet and did not answer in time
	Took     time.Duration // the server's own time (Response.Took)
}

// GetRouterStatus asks the router for RouterStatus.
type GetRouterStatus struct{}

// RouterStatus lists the server actors the router runs.
type RouterStatus struct {
	Workspace string
	Servers   []ServerInfo
	Barriers  BarrierStats
}

// BarrierStats counts the barriers taken (each holds every call that
// waits for the changes on disk before it to reach the servers; Spent is
// their time in all) and the calls that found nothing on its way and went
// at once (Skipped). Reaching is the part of Spent until the watcher's
// batch naming the barrier was handled; the rest went to the disk work
// that batch started (re-syncs, closes). Checked counts the reads of
// files from disk that the watcher had to confirm before they were taken
// (something changed on disk while they ran), Reread those done again (a
// change to the file, or its writer not done, came during the read).
type BarrierStats struct {
	Taken, Skipped  uint64
	Spent, Reaching time.Duration
	Checked, Reread uint64
}

// ServerInfo is the router's view of one server actor.
type ServerInfo struct {
	ServerKey
	State       ServerState
	Incarnation int
	PID         int // OS process id while running
	Broken      bool
	Err         error
	OpenFiles   int
	// Work is the server's work-done progress in flight ("Indexing: 40/120
	// packages"), "" when none runs.
	Work string
}
