// Package router is the router actor: one per workspace, it resolves the
// files agents name to their (server, root) pairs, spawns one server actor
// per pair on first use (lazily, exactly once: its mailbox serializes first
// touches) and supervises them, fans requests and document changes out to
// every server of a file and merges the answers, reference-counts open
// documents per session, stops idle servers, and forwards changes on disk
// from its watcher.
//
// Messages it takes: Resolve, SyncDocument (answered with FileSynced),
// FileRequest and WorkspaceRequest (answered with FileResponse), Cancel,
// FilesChanged (from its watcher), GetRouterStatus, and from its children
// StateChanged and ServerIdle. Its own goroutines, all joined by the
// runtime's Reaper: the bounded walk that finds the roots the workspace's
// markers imply, and disk reads of open documents after a change. Its
// children (server actors, the watcher) stop with it.
package router
