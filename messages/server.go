package messages

import (
	"encoding/json"
	"time"
)

// ServerState is the lifecycle state of one language-server actor.
type ServerState int

// The states of a server actor:
// stopped -> starting -> running -> stopping -> stopped, and error on failure
// (restarting with backoff, or broken once the crash budget is spent).
const (
	StateStopped ServerState = iota
	StateStarting
	StateRunning
	StateStopping
	StateError
)

// String returns the state's name.
func (s ServerState) String() string {
	switch s {
	case StateStopped:
		return "stopped"
	case StateStarting:
		return "starting"
	case StateRunning:
		return "running"
	case StateStopping:
		return "stopping"
	case StateError:
		return "error"
	}
	return "unknown"
}

// StateChanged is sent by a server actor to its observers on every
// transition. Broken is true when the server will not be restarted until a
// later request (crash budget spent, or binary missing).
type StateChanged struct {
	ServerID    string
	Root        string
	State       ServerState
	Incarnation int // process generation, 1 for the first process
	PID         int // the OS process id while running, else 0
	Broken      bool
	Err         error // why the server left running, nil otherwise
}

// Request asks a server for an LSP request (textDocument/definition, ...).
// The server replies with exactly one Response. ID is chosen by the caller
// and is unique among its requests; Cancel names it.
type Request struct {
	ID      uint64
	Method  string
	Params  json.RawMessage // owned by the message
	Timeout time.Duration   // zero: the server's request timeout
}

// Response answers a Request: Result is the raw JSON result (possibly
// "null"), or Err says why there is none.
type Response struct {
	ID       uint64
	ServerID string
	Result   json.RawMessage
	Err      error
	Indexing bool // the server reported work in progress when it answered
	// Took is the server's own time: from the request handed to the
	// connection to its answer read back (0 when it was not sent).
	Took time.Duration
}

// Cancel asks a server to abandon the request with that ID; the server
// sends $/cancelRequest and the request is answered with ErrCanceled.
// Fire and forget: no reply.
type Cancel struct {
	ID uint64
}

// OpenDocument opens (or, if open, replaces the text of) a document on a
// server. The reply is DocumentSynced.
type OpenDocument struct {
	URI        string
	LanguageID string
	Text       string
	// Edited says Text is an agent's edit, not the disk's: opening it
	// changes what the server knows of the file.
	Edited bool
}

// ChangeDocument replaces the whole text of an open document; the server
// actor sends an incremental or full change as the server asked for. The
// reply is DocumentSynced.
type ChangeDocument struct {
	URI  string
	Text string
}

// TouchDocument gives an open document a new version with the same text
// when anything changed on the server since its current version was sent
// (another document, a file on disk): the server then diagnoses it again
// in a workspace that includes every earlier change, and diagnostics for
// the new version are fresh. Changed is false in the reply when nothing
// changed since. The reply is DocumentSynced; its Barrier or PullView,
// when set, says what stands for the touch, which was not sent.
type TouchDocument struct {
	URI string
}

// Barrier is a touch of another document that stands for a touch not
// sent (DocumentSynced, ServerVersion). A server that signals the end of
// each diagnosis (gopls's "diagnosing" progress) and publishes, when a
// diagnosis ends, every open document whose diagnostics it changed, has
// described every open document as of the last change it was sent once
// it described that change and said its diagnosis of it ended. When that
// last change was itself a touch or an open, touching another document as
// well would only make the server diagnose the same workspace again: a
// check of 478 files touched 478 times, and each touch cost gopls a new
// snapshot. The document's diagnostics are then fresh once the server
// published URI at Version or later and went quiet after SentAt, when the
// touch or open was sent.
type Barrier struct {
	URI     string
	Version int32
	SentAt  time.Time
}

// AwaitPulled asks a server actor to answer (Pulled) once each of the
// documents has been pulled for its current version: their diagnostics
// then describe what the server had before any later change. A document
// not open, or a server that pulls nothing or is not running, counts as
// pulled; the asker bounds the wait.
type AwaitPulled struct {
	URIs []string
}

// Pulled answers AwaitPulled.
type Pulled struct{}

// SaveDocument sends didSave for an open document. The reply is DocumentSynced.
type SaveDocument struct {
	URI string
}

// CloseDocument closes an open document. The reply is DocumentSynced.
type CloseDocument struct {
	URI string
	// Left says the document moved to other servers (a root marker
	// appeared or went away: router reroute): what this server said of
	// it no longer describes it, even while the server restarts.
	Left bool
}

// DocumentSynced answers a document message: Version is the document
// version the server now has (strictly increasing per document), SentAt when
// the notification was queued for the server. Err is set when nothing was
// sent (for example ErrNotOpen, ErrServerBroken).
type DocumentSynced struct {
	URI     string
	Version int32
	Changed bool     // false when the text was already current and nothing was sent
	Barrier *Barrier // a TouchDocument's: the touch of another document that stands for this one's
	// PullView, a TouchDocument's on a server that is pulled: the document
	// was pulled again instead of touched, at this view of the server (its
	// store's Seq); only a pull asked at this view or later describes it.
	PullView uint64
	Err      error
}

// GetServerStatus asks a server actor for a ServerStatus snapshot.
type GetServerStatus struct{}

// ServerStatus is a snapshot of a server actor.
type ServerStatus struct {
	ServerID      string
	Root          string
	State         ServerState
	Incarnation   int
	Restarts      int // after crashes
	Broken        bool
	LastErr       error
	PID           int             // OS process id, 0 when none runs
	Capabilities  json.RawMessage // the server's initialize result capabilities
	Registrations []Registration  // dynamic registrations in force
	OpenDocuments map[string]int32
	InFlight      int // calls held: in flight or waiting
	Sent          int // calls sent to the server and not answered
	Indexing      bool
	Timers        int // timers pending
	StderrTail    []string
	// Reconfigured counts the planned restarts after a change of one of
	// the server's configuration files (config.Server.ConfigFiles); they
	// are not among Restarts and spend no crash budget.
	Reconfigured int
}

// Registration is one dynamic capability registration made by a server.
type Registration struct {
	ID              string
	Method          string
	RegisterOptions json.RawMessage
}

// StopServer asks a server actor to shut its process down gracefully and
// stop. No reply; observers see StateChanged to stopped.
type StopServer struct{}

// ServerIdle is sent by a server actor to its parent when it has had no
// open document and no request for its idle timeout. Activity is the count
// of requests and document messages it has received; the parent stops the
// server only if it sent it nothing since (so nothing is lost in flight).
type ServerIdle struct {
	ServerKey
	Activity uint64
}
