// Package diagnostics is the diagnostics actor: one per runtime, it
// observes every server actor, keeps the latest diagnostics per (server,
// document) with the version they describe (the store core), answers the
// edits that wait for what they caused (the edit tracker core: released
// once every server produced diagnostics for the edited version, plus a
// settle window after pushes; a hard timeout), reports what an edit caused
// (delta against its baseline, cascade into other files, capped), and
// sends each subscribed session batches of what is new to it,
// deduplicated across turns.
//
// Messages it takes: PublishedDiagnostics, StateChanged, Progress and
// ProjectLoad (answers about a server that could not load its project are
// project_error) from the servers; EditStarted, EditAborted and AwaitEdit (answered with
// EditResult); Subscribe, Unsubscribe and BatchAck (batches are sent to
// the subscriber, one at a time); GetDiagnostics (answered with
// DiagnosticsSnapshot). It starts no goroutine; its timers (settle,
// timeout, batch flush) are stopped when it stops.
package diagnostics
