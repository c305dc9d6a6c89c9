// Package daemon shares one agentlsp runtime between processes: the daemon
// side (Serve: the runtime's router and diagnostics actors made reachable
// over protoactor remote, and the front actor clients attach to) and the
// client side (Dial: a link actor that stands in for the daemon's router
// and diagnostics actors in the client's own actor system).
//
// Remote messages are agentlsp's own messages (package messages), carried
// by protoactor remote over gRPC on 127.0.0.1 and serialized by package
// codec. Every gRPC connection presents the daemon's token, checked by a
// server interceptor; a missing or wrong token is refused and logged with
// the peer's address. The daemon registers itself in the runtime directory
// (package rundir).
//
// The client's link forwards every message the client's runtime sends to
// the daemon, with the client's session names and request and edit ids
// put in the client's own namespace (the front gives each client a name),
// so clients never share a session or an id. It remembers what it needs
// to survive the daemon: the documents each session holds (and the text
// of edits), the subscriptions, the calls waiting for a reply. When the
// daemon goes (killed, crashed, restarted) the link attaches to the
// daemon that serves the workspace next, starting one if none runs,
// re-opens the documents, re-subscribes, and sends the waiting calls
// again; an edit waiting for its diagnostics is replayed (an Edit is sent
// again whole, its EditApplied reaching the caller once; an edit a client
// announced itself gets its EditStarted, text and AwaitEdit again; the
// baseline is the new daemon's, which is empty). Callers see a slower
// answer, not an error. A Cancel or CancelEdit goes to the daemon as the
// call it cancels (the router keys callers' ids by sender), which the
// link then forgets.
//
// The front actor watches each client's link; when a client goes
// (exited, killed, connection lost: protoactor remote terminates the
// endpoint and the watch fires) it ends every session the client used,
// which releases the documents it held.
//
// Goroutines: Serve runs on its caller's goroutine; protoactor remote
// owns its gRPC goroutines until it is shut down (bounded). A Client's
// link runs one connect goroutine at a time (find or start the daemon,
// attach), joined when the Client closes.
package daemon

import "errors"

// Errors of the daemon and its clients.
var (
	// ErrNoCommand: no agentlsp command to start a daemon with.
	ErrNoCommand = errors.New("daemon: no agentlsp command to start the daemon")
	// ErrStartFailed: the daemon did not start.
	ErrStartFailed = errors.New("daemon: the daemon did not start")
	// ErrDaemonLost: a client's daemon went away and the client is not
	// attached to another yet (Client.Lost says why).
	ErrDaemonLost = errors.New("daemon: no daemon attached")
)
