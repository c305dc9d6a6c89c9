package watcher

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/fsnotify/fsnotify"

	"github.com/agentlsp/agentlsp/messages"
)

// Barriers. One inotify instance delivers all its events in one ordered
// queue, and a write queues its event before the write returns. So when
// the marker of a barrier, created in a private directory watched by the
// same fsnotify watcher as the workspace, comes out of the queue, every
// change made before the barrier was asked for has come out before it. The
// watcher then flushes at once (no debounce), the batch naming the
// barrier, so its target knows every earlier change is in that batch or
// an earlier one.

// barrierWritten: a marker was written (or could not be).
type barrierWritten struct {
	gen uint64
	id  uint64
	err error
}

// makeMarks creates the private marker directory and watches it; "" when
// it cannot (barriers then flush at once, marked Partial).
func (a *watcherActor) makeMarks(w *fsnotify.Watcher) string {
	dir, err := os.MkdirTemp("", "agentlsp-barrier-")
	if err == nil {
		if err = w.Add(dir); err != nil {
			_ = os.Remove(dir)
		}
	}
	if err != nil {
		a.cfg.Logger.Warn("watcher: no barrier directory; answers cannot prove they saw every change",
			"workspace", a.cfg.Workspace, "err", err)
		return ""
	}
	return dir
}

// onBarrier writes the barrier's marker in a reaper goroutine (or, without
// a marker directory, flushes at once).
func (a *watcherActor) onBarrier(ctx actor.Context, m *messages.WatchBarrier) {
	if a.marks == "" || a.w == nil {
		a.barriers = append(a.barriers, m.ID)
		a.flushNow(ctx)
		return
	}
	gen, send, path := a.gen, a.send, filepath.Join(a.marks, strconv.FormatUint(m.ID, 10))
	// Lives for one create and one remove; joined by the Reaper.
	a.cfg.Reaper.Go(func() {
		err := os.WriteFile(path, nil, 0o600)
		if err == nil {
			err = os.Remove(path) // its removal event is ignored
		}
		send(&barrierWritten{gen: gen, id: m.ID, err: err})
	})
}

// onBarrierWritten: a marker that could not be written cannot be seen;
// the barrier is flushed at once, marked Partial.
func (a *watcherActor) onBarrierWritten(ctx actor.Context, m *barrierWritten) {
	if m.err == nil {
		return
	}
	a.cfg.Logger.Warn("watcher: barrier marker not written", "err", m.err)
	a.lost = true
	a.barriers = append(a.barriers, m.id)
	a.flushNow(ctx)
}

// flushNow ends the debounce window now: at once, or when the walk in
// progress ends (a new directory and what it holds go in one batch).
func (a *watcherActor) flushNow(ctx actor.Context) {
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	if a.walking {
		a.flushDue = true
		return
	}
	a.flush(ctx)
}

// partial reports whether the watcher may have missed changes: a bound was
// reached, events were lost, or nothing is watched.
func (a *watcherActor) partial() bool {
	return a.limited || a.lost || a.w == nil || a.marks == "" || !a.ready
}

// removeMarks removes the marker directory (in a reaper goroutine).
func (a *watcherActor) removeMarks() {
	if dir := a.marks; dir != "" {
		a.marks = ""
		// Lives for one removal; joined by the Reaper.
		a.cfg.Reaper.Go(func() { _ = os.RemoveAll(dir) })
	}
}
