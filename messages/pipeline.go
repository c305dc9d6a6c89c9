package messages

import "time"

// Status says how far a diagnostics answer can be trusted.
type Status string

// The statuses of a diagnostics answer, from best to worst.
const (
	// StatusFresh: every server produced diagnostics for the current version.
	StatusFresh Status = "fresh"
	// StatusStale: what is known describes an older version of the file.
	StatusStale Status = "stale"
	// StatusTimeout: the wait ended before every server answered; what did
	// arrive is included.
	StatusTimeout Status = "timeout"
	// StatusNotReady: a server is still starting or indexing.
	StatusNotReady Status = "not_ready"
	// StatusProjectError: a server runs but said it could not load the
	// project the file belongs to (a broken go.mod or Cargo.toml, no
	// Cargo.toml at all, an unparsable pyproject.toml): what it reports
	// may not describe the file, which it may never have checked. The
	// detail quotes the server's message; it holds until the server says
	// it loaded the project again, or restarts.
	StatusProjectError Status = "project_error"
	// StatusNoServer: no server handles the file.
	StatusNoServer Status = "no_server"
	// StatusServerBroken: a server that handles the file is broken.
	StatusServerBroken Status = "server_broken"
)

// Rank orders statuses from best (0) to worst.
func (s Status) Rank() int {
	switch s {
	case StatusFresh:
		return 0
	case StatusStale:
		return 1
	case StatusTimeout:
		return 2
	case StatusNotReady:
		return 3
	case StatusProjectError:
		return 4
	case StatusNoServer:
		return 5
	case StatusServerBroken:
		return 6
	}
	return 7
}

// EditStarted tells the diagnostics actor that a session is about to
// change a document: it snapshots the current diagnostics as the edit's
// baseline. It must be sent before the change reaches the router, so it is
// processed before any diagnostics for the new version. No reply.
type EditStarted struct {
	EditID  uint64
	Session string
	URI     string
	// Current marks a diagnostics call (Edit.Current): it changes nothing
	// itself (a change it takes from disk is told as a change on disk), so
	// no other file's errors are attributed to it.
	Current bool
}

// EditAborted tells the diagnostics actor that the change announced by
// EditStarted never went out (for example the file has no server): it
// forgets the edit. No reply.
type EditAborted struct {
	EditID uint64
}

// AwaitEdit asks for the diagnostics an edit caused, once every server in
// Servers produced diagnostics for the version it got (or Timeout passes).
// The reply is EditResult. The router sends it for an Edit (with the
// caller's id in CallerID); orchestrators that sync documents themselves
// may send it after EditStarted and SyncDocument.
type AwaitEdit struct {
	EditID   uint64
	CallerID uint64 // echoed as EditResult.ID
	Session  string
	URI      string
	Servers  []ServerVersion
	// Current marks a diagnostics call (Edit.Current): its other files are
	// those with errors new to the session since its previous answer,
	// not the files the change broke.
	Current bool
	// Named are the URIs of the other files of the same diagnostics call
	// (Edit.Named, resolved).
	Named []string
	WaitOptions
}

// WaitOptions tune an edit's wait and its answer. Zero values are the
// defaults.
type WaitOptions struct {
	// Timeout bounds the wait (zero: 3s); Settle is the window after a push
	// for servers that publish in phases (zero: 150ms).
	Timeout time.Duration
	Settle  time.Duration
	// WorkingTimeout extends Timeout while a server the edit waits for
	// says it is at work on it and has not described the change yet: it
	// is starting, reports work-done progress (loading its workspace), or
	// runs a diagnosis begun after the change was sent. The wait then
	// ends when that work ends or WorkingTimeout after the edit began,
	// whichever comes first (zero: Timeout is the bound). A one-shot
	// check wants it: gopls loading a large module for the first time
	// diagnoses for seconds, and a timeout says nothing about the file.
	WorkingTimeout time.Duration
	// All reports every current diagnostic of the file, not only those the
	// edit added.
	All bool
	// MinSeverity filters (zero: errors only).
	MinSeverity Severity
	// MaxEdited and MaxOtherFiles cap the result (zero: 20 and 5; a
	// negative MaxOtherFiles reports no other file). The other files left
	// out past MaxOtherFiles are named in the first report's MoreFiles
	// (none when it is negative).
	MaxEdited     int
	MaxOtherFiles int
}

// EditResult answers Edit and AwaitEdit: the edited file first, then up
// to MaxOtherFiles other files in which the edit made new errors appear
// (Other set). Files whose diagnostics changed meanwhile because of other
// changes that overlapped the edit (another session's edit, a file
// written on disk) are not blamed on it: they are in Meanwhile. Applied
// says whether the change went out, at the versions in Servers; Err says
// why there is no answer (a bad path, no server: then nothing was sent).
// An edit whose servers are all broken is applied (the router and the
// broken server actors keep the text for their next start) and answered
// server_broken, each server's reason in the report, with each server's
// error in Servers.
type EditResult struct {
	ID        uint64 // the caller's id (Edit.ID, AwaitEdit.CallerID)
	EditID    uint64
	Status    Status
	Files     []FileReport
	Meanwhile []FileReport
	Elapsed   time.Duration
	Applied   bool
	Servers   []ServerVersion
	Err       error
}

// FileReport is the diagnostics of one file in an answer.
type FileReport struct {
	URI         string
	Path        string // the file's path, filled in by the API (not the actors)
	Status      Status
	Diagnostics []Diagnostic
	More        int      // how many more there were beyond the cap
	Servers     []string // servers whose diagnostics are included
	Detail      string   // why the status is not fresh, when it is not
	// Other marks a file the call did not name: its diagnostics changed
	// because of the edit (or, for a diagnostics call, since the session's
	// previous answer) and it has errors the session was not shown.
	Other bool
	// ChangedBy names, for a file in EditResult.Meanwhile, the changes that
	// overlapped the edit and could have made its errors (another
	// session's edit, a change on disk), or why the edit could not. For
	// another file of a diagnostics call (Other set) it names the changes
	// since the session's previous answer, other than to the files the
	// call named, that could have made its new errors (the file's own
	// change on disk, another session's edit); empty when only the named
	// files' changes could have. For the edited file of an EditResult it
	// names the changes of others that overlapped the edit and can reach
	// the file (another session's edit of it or of a file it imports, a
	// change on disk): the report may describe their text, not only the
	// edit's.
	ChangedBy []string
	// MoreFiles, on the report of a file the answer is about (the edited
	// file, a file a diagnostics call named), lists the URIs of the other
	// files with new errors that the answer left out, past its cap on
	// other files (MaxOtherFiles), sorted: the answer names them without
	// their diagnostics, which an answer about them by name gives. Its
	// length is how many files were left out. dedup.MoreFiles gathers
	// them from the reports of an answer.
	MoreFiles []string
}

// Subscribe registers the sender as the session's subscriber for passive
// diagnostic batches: it must be sent with Request (or RequestFuture), since
// the batches go to the sender; sent without one it is refused and logged.
// The diagnostics actor sends DiagnosticBatch messages, one at a time: the
// next only after a BatchAck (so a slow subscriber never makes anything
// grow; what is new meanwhile is merged within the caps). A subscription
// can be narrowed to files under Prefixes (absolute paths) and, with Own,
// to the files the session itself edited or asked about. No reply.
type Subscribe struct {
	Session  string
	Prefixes []string
	Own      bool
}

// Unsubscribe ends a session's subscription and forgets what was
// delivered to it. No reply.
type Unsubscribe struct {
	Session string
}

// BatchAck acknowledges the last DiagnosticBatch. No reply.
type BatchAck struct {
	Session string
}

// DiagnosticBatch is what is new to a session since its last batch: at
// most 10 diagnostics per file and 30 per batch, errors first, each
// diagnostic delivered to a session once.
type DiagnosticBatch struct {
	Session string
	Files   []FileReport
}

// GetDiagnostics asks for the current diagnostics of files, without
// waiting. The reply is DiagnosticsSnapshot.
type GetDiagnostics struct {
	URIs        []string
	MinSeverity Severity
}

// DiagnosticsSnapshot answers GetDiagnostics.
type DiagnosticsSnapshot struct {
	Files []FileReport
}
