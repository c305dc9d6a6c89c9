// Package watcher is the file watcher actor: one per workspace, it
// watches the workspace's directories (ignored names skipped, at most
// MaxDirs directories) with its own inotify reader on Linux, fsnotify
// elsewhere, coalesces changes on disk for a debounce window and sends
// them to its target (the router) as one *messages.FilesChanged. A
// WatchBarrier flushes at once every change made before it; a Probe lets
// the target see, without a message, that no change is on its way.
//
// Messages it takes: messages.WatchBarrier, messages.GetWatcherStatus
// (answered with a *messages.WatcherStatus). Its own goroutines: the
// source's reader (until the source is closed when the actor stops) and
// one directory walk at a time (bounded by MaxDirs, cut short when the
// actor stops), all joined by the runtime's Reaper; its debounce timer is
// stopped when it stops.
package watcher
