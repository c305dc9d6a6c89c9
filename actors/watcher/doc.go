// Package watcher is the file watcher actor: one per workspace, it
// watches the workspace's directories with fsnotify (ignored names skipped,
// at most MaxDirs directories), coalesces changes on disk for a debounce
// window and sends them to its target (the router) as one
// *messages.FilesChanged.
//
// Messages it takes: messages.GetWatcherStatus (answered with a
// *messages.WatcherStatus). Its own goroutines: the fsnotify reader (until
// the fsnotify watcher is closed when the actor stops) and one directory
// walk at a time (bounded by MaxDirs, cut short when the actor stops), all
// joined by the runtime's Reaper; its debounce timer is stopped when it
// stops.
package watcher
