// Package server is the server actor: one per (language server, project
// root), it owns one server process at a time (an incarnation) and its
// connection, and is the thin shell around three single-threaded cores:
// the call queue (package calls: requests waiting, in flight, retried,
// expired; bounded), the document store (package docs: the text and
// version the server has of each document, and the notifications that
// keep it in step) and the pull scheduler (package pulls: textDocument/
// diagnostic rounds). It feeds them messages and timers and carries out
// what they decide.
//
// Its state machine: stopped -> starting -> running -> stopping ->
// stopped, and error after a crash (a restart after the supervisor
// policy's backoff) or when broken (crash budget spent, or a missing
// binary; tried again on a later use once the policy allows). The
// documents, versions, crash budget and incarnation count survive a
// restart of the actor after a panic: a new process gets every open
// document re-opened with its latest text.
//
// Messages it takes: Request (answered with Response), Cancel,
// OpenDocument, ChangeDocument, TouchDocument, SaveDocument and
// CloseDocument (answered with DocumentSynced), FilesChanged (forwarded as
// workspace/didChangeWatchedFiles to the globs the server registered; one
// that names a configuration file of the server restarts it instead, a
// planned restart: reconfigure.go),
// GetServerStatus, StopServer. It tells its observers StateChanged,
// PublishedDiagnostics (pushes and pull results), Progress and
// ProjectLoad (the server says it could not load its project, or no longer
// does: load.go), and its parent ServerIdle.
//
// Goroutines: an incarnation's goroutine (spawn, handshake, then a wait
// for the process to end) and a graceful shutdown's, both run by the
// runtime's Reaper, which joins them; the transport's own goroutines end
// with the connection. Its timers (restart backoff, ContentModified retry,
// queue deadlines, the one idle check) stop when it stops or restarts.
package server
