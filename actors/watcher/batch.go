package watcher

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/asynkron/protoactor-go/actor"
)

// Batches: changes are coalesced per path for a debounce window, then sent
// to the target as one FilesChanged, sorted by path.
//
// A file still open for writing is held back (the source reports closes:
// inotify's IN_CLOSE_WRITE), until its writer closes it or for at most
// MaxWriteHold: a flush in the middle of a write (os.WriteFile truncates,
// then writes) would have the target read it half written and send that
// to the servers. gopls took an empty Go file for a package change and
// reloaded the module's metadata, stalling every agent's navigation for
// 100 ms at a time. A barrier's batch holds them back too: a write not
// finished when the barrier was asked is not a change made before it.

// record coalesces a change into the pending batch (at most
// MaxPending paths; more are dropped and counted) and opens a
// debounce window if none is open.
func (a *watcherActor) record(path string, t messages.FileChangeType) {
	prev, had := a.pending[path]
	switch next, keep := coalesce(prev, had, t); {
	case !had && len(a.pending) >= a.cfg.MaxPending:
		a.dropped++
		a.dropping++
		a.lost = true // the batch cannot prove it is complete
	case keep:
		a.pending[path] = next
	default:
		delete(a.pending, path)
	}
	if t == messages.FileDeleted {
		delete(a.writing, path)
	}
	a.arm()
}

// writeBegan notes a write to a pending path, by a writer whose close the
// source will report.
func (a *watcherActor) writeBegan(path string) {
	if _, ok := a.pending[path]; !ok {
		return // dropped beyond MaxPending
	}
	if _, ok := a.writing[path]; !ok {
		a.writing[path] = time.Now()
	}
}

// writeEnded takes a close after writing: the change can go out.
func (a *watcherActor) writeEnded(path string) {
	if _, ok := a.writing[path]; ok {
		delete(a.writing, path)
		a.arm()
	}
}

// held reports whether a pending path is still being written and within
// MaxWriteHold of its first write.
func (a *watcherActor) held(path string, now time.Time) bool {
	since, ok := a.writing[path]
	return ok && now.Sub(since) < a.cfg.MaxWriteHold
}

// coalesce folds change next into the pending change prev (had: there is
// one) and says whether anything is left to report: created then changed
// is created, created then deleted nothing, deleted then created changed,
// changed then deleted deleted.
func coalesce(prev messages.FileChangeType, had bool, next messages.FileChangeType) (messages.FileChangeType, bool) {
	switch {
	case !had:
		return next, true
	case prev == messages.FileCreated:
		return messages.FileCreated, next != messages.FileDeleted
	case next == messages.FileDeleted:
		return messages.FileDeleted, true
	}
	return messages.FileChanged, true
}

// arm opens a debounce window unless one is open.
func (a *watcherActor) arm() {
	if a.timer != nil || a.flushDue {
		return
	}
	gen, send := a.gen, a.send
	a.timer = time.AfterFunc(a.cfg.Debounce, func() { send(&watchFlush{gen: gen}) })
}

// isDir reports whether a change of type t to p is of a directory: one
// deleted that was watched, or one made that is watched now (a walk
// added it before the flush).
func (a *watcherActor) isDir(p string, t messages.FileChangeType) bool {
	switch t {
	case messages.FileDeleted:
		_, dir := a.gone[p]
		return dir
	case messages.FileCreated:
		_, dir := a.dirs[p]
		return dir
	}
	return false
}

// onFlush ends the debounce window. During a walk the flush waits for it,
// so that a new directory and what it holds arrive in one batch.
func (a *watcherActor) onFlush(ctx actor.Context) {
	a.timer = nil
	if a.walking {
		a.flushDue = true
		return
	}
	a.flush(ctx)
}

// flush sends the pending changes, sorted by path, as one FilesChanged,
// and logs the changes dropped during the window.
func (a *watcherActor) flush(ctx actor.Context) {
	a.flushDue = false
	if a.dropping > 0 {
		a.cfg.Logger.Warn("watcher: too many changed paths at once; changes dropped",
			"workspace", a.cfg.Workspace, "dropped", a.dropping, "maxPending", a.cfg.MaxPending)
		a.dropping = 0
	}
	if len(a.pending) == 0 && len(a.barriers) == 0 || a.cfg.Target == nil {
		clear(a.pending)
		clear(a.writing)
		clear(a.gone)
		return
	}
	now := time.Now()
	var held []string
	changes := make([]messages.FileChange, 0, len(a.pending))
	for p, t := range a.pending {
		if a.held(p, now) {
			held = append(held, p)
			continue
		}
		changes = append(changes, messages.FileChange{Path: p, URI: paths.URI(p), Type: t, Dir: a.isDir(p, t)})
		delete(a.pending, p)
		delete(a.writing, p) // past its hold: a later write is held again
	}
	clear(a.gone) // a deleted directory is never held: none is left pending
	if len(held) > 0 {
		a.arm() // look again after a window
	}
	if len(changes) == 0 && len(a.barriers) == 0 {
		return
	}
	changes = a.withLinks(changes)
	slices.SortFunc(changes, func(x, y messages.FileChange) int { return cmp.Compare(x.Path, y.Path) })
	slices.Sort(held)
	ctx.Send(a.cfg.Target, &messages.FilesChanged{Workspace: a.cfg.Workspace, Changes: changes,
		Barriers: a.barriers, Partial: a.partial(), Seq: a.cfg.Probe.nextFlush(), Moved: a.moved, Held: held})
	a.barriers, a.lost, a.moved = nil, false, false
}

// withLinks adds, for each change below a directory that a symbolic link
// of the workspace leads to, the same change below the link: the directory
// is watched under its real path only, and gopls, which reads a package
// imported through a link under the link's path, never heard of a change
// made there (a definition into it named the old line).
func (a *watcherActor) withLinks(changes []messages.FileChange) []messages.FileChange {
	if len(a.links) == 0 {
		return changes
	}
	for _, c := range changes {
		for link, real := range a.links {
			if c.Path != real && paths.Within(real, c.Path) {
				p := link + strings.TrimPrefix(c.Path, real)
				changes = append(changes, messages.FileChange{Path: p, URI: paths.URI(p), Type: c.Type, Dir: c.Dir})
			}
		}
	}
	return changes
}
