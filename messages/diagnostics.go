package messages

// Position is a zero-based LSP position: Character counts UTF-16 code
// units, the one position encoding agentlsp makes every server use. It is
// the only position type of agentlsp; the editor view (1-based lines,
// columns in characters) is a rendering of it.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a zero-based LSP range, End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Severity is an LSP diagnostic severity: 1 error, 2 warning, 3 info, 4 hint.
type Severity int

// The LSP severities.
const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

// String returns the severity's lower-case name.
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "error"
}

// Diagnostic is one diagnostic as a plain value. Code is the server's code
// rendered as text ("" when none).
type Diagnostic struct {
	Range    Range
	Severity Severity
	Code     string
	Source   string
	Message  string
}

// PublishedDiagnostics is a server's diagnostics for one document, from a
// textDocument/publishDiagnostics push. HasVersion is false when the server
// did not say which version they describe. Incarnation is the server
// process generation that published them.
type PublishedDiagnostics struct {
	ServerID    string
	Root        string
	URI         string
	Version     int32
	HasVersion  bool
	Incarnation int
	// Pulled: the result of textDocument/diagnostic pulls for Version (all
	// the server's identifiers), complete as it stands; else a push.
	Pulled      bool
	Diagnostics []Diagnostic
	// View, for a pull: how far the server's view had come when the pull
	// was asked for (the server actor's count of changes sent to it, as in
	// DocumentSent): the result describes every change up to it. For a
	// push, how far it had come when the push arrived: the push describes
	// no change sent after it.
	View uint64
}

// DocumentSent tells a server actor's observers that a version of a
// document went to its server (didOpen, didChange): diagnostics stored for
// an older version are not the document's current ones. It comes before
// any publication for that version (one sender, in order).
type DocumentSent struct {
	ServerID string
	Root     string
	URI      string
	Version  int32
	// View counts the changes sent to the server up to and including this
	// version (opens, changes, closes, changes on disk forwarded): a pull
	// asked for before the server's view reached it (PublishedDiagnostics
	// View) describes a workspace without this change.
	View uint64
	// Closed says the document was closed on the server (didClose; with
	// Version, the version it had): the server describes the file on disk
	// from then on.
	Closed bool
	// Left, with Closed, says the document moved to other servers: what
	// this server said of it is forgotten.
	Left bool
	// OpenOnly says the server diagnoses open files only (its definition
	// opens a change's importers: config.Server.OpenImporters): what it
	// reports of a document just opened has nothing before it to compare
	// with.
	OpenOnly bool
	// Touch says this version has the text of the version before it (a
	// touch, or an edited open sent again): what the server said of that
	// text in a workspace that already had a change still describes the
	// document's text after it.
	Touch bool
	// Pulls says the server offers pull diagnostics, so the server actor
	// asks it for this version's: until the answer comes, the server is at
	// work on them (WaitOptions.WorkingTimeout).
	Pulls bool
}

// PullsOffered tells the observers that a server now offers pull
// diagnostics, or no longer does (a registration, or its withdrawal, after
// the documents were sent): pyright registers its provider after the
// handshake, when the documents opened while it started were already sent
// with Pulls false, and the waits for them took the server for idle while
// it answered their pulls (DocumentSent.Pulls).
type PullsOffered struct {
	ServerID string
	Root     string
	Pulls    bool
}

// ProjectLoad tells a server actor's observers that its server said it
// could not load its project, or that it no longer says so: Failure is the
// server's own message, "" once the server began a new load of the
// project, ended the work that reported the failure, or restarted
// (config.Server LoadError and LoadStart). Sent only when Failure changes.
type ProjectLoad struct {
	ServerID string
	Root     string
	Failure  string
}

// Progress reports a server's work-done progress ($/progress): Active is
// true between begin and end of at least one token.
type Progress struct {
	ServerID string
	Root     string
	Token    string
	Kind     string // begin, report, end
	Title    string
	Message  string
	Active   bool // whether any work other than diagnoses still runs on that server
	// Diagnosing says this token is a diagnosis of changes (gopls:
	// "diagnosing ..."): its end means the diagnostics of the changes
	// before it were all published. Diagnoses is how many run now.
	Diagnosing bool
	Diagnoses  int
}
