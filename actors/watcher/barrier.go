package watcher

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// Barriers. One inotify instance delivers all its events in one ordered
// queue, and a write queues its event before the write returns. So when
// the event of a barrier's marker write, in a private directory watched by
// the same source as the workspace, comes out of the queue, every change
// made before the barrier was asked for has come out before it. The
// watcher then flushes at once (no debounce), the batch naming the
// barrier, so its target knows every earlier change is in that batch or
// an earlier one.
//
// A marker is a file of the private directory, kept open: a barrier takes
// a free one and writes a byte in place (one pwrite, no directory change);
// the file is free again once its event came out. So no two writes to one
// file wait in the queue at once, where the kernel would merge their
// events into one.

// maxMarks bounds the marker files, hence the barriers in flight.
const maxMarks = 64

// errTooManyBarriers refuses a barrier beyond maxMarks in flight.
var errTooManyBarriers = errors.New("too many barriers in flight")

// marks is the private marker directory and its files.
type marks struct {
	dir   string
	files []*os.File        // by number: the file's name
	free  []int             // numbers of files without a write in flight
	busy  map[string]uint64 // name -> the barrier its write in flight is for
}

// makeMarks creates the private marker directory and watches it; nil
// when it cannot (barriers then flush at once, marked Partial).
func (a *watcherActor) makeMarks(w source) *marks {
	// Lives for one read of the temporary directory; joined by the Reaper.
	a.cfg.Reaper.Go(sweepMarks)
	dir, err := os.MkdirTemp("", markPrefix+strconv.Itoa(os.Getpid())+"-")
	if err == nil {
		if err = w.Add(dir); err != nil {
			_ = os.Remove(dir)
		}
	}
	if err != nil {
		a.cfg.Logger.Warn("watcher: no barrier directory; answers cannot prove they saw every change",
			"workspace", a.cfg.Workspace, "err", err)
		return nil
	}
	return &marks{dir: dir, busy: map[string]uint64{}}
}

// markPrefix begins the name of every marker directory, which goes on
// with the owner's process ID and a dash.
const markPrefix = "agentlsp-barrier-"

// sweepMarks removes the marker directories of processes that no longer
// run: a process killed (SIGKILL, a crash) cannot remove its own.
func sweepMarks() {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), markPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && n > 0 && !running(n) {
			_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// onBarrier writes the barrier's marker (or, without a marker directory,
// flushes at once).
func (a *watcherActor) onBarrier(ctx actor.Context, m *messages.WatchBarrier) {
	if a.marks == nil || a.w == nil {
		a.barriers = append(a.barriers, m.ID)
		a.flushNow(ctx)
		return
	}
	if err := a.marks.write(m.ID); err != nil {
		// A marker that could not be written cannot be seen: the barrier
		// is flushed at once, marked Partial.
		a.cfg.Logger.Warn("watcher: barrier marker not written", "err", err)
		a.lost = true
		a.barriers = append(a.barriers, m.ID)
		a.flushNow(ctx)
		return
	}
	// The marker's event is queued: read it, and every event before it,
	// now (they come to this actor as the reader's would, in order)
	// rather than when the runtime's poller wakes the reader.
	a.w.drain()
}

// write writes barrier id's marker in a free file (created if none is).
func (k *marks) write(id uint64) error {
	var n int
	if last := len(k.free) - 1; last >= 0 {
		n, k.free = k.free[last], k.free[:last]
	} else {
		if len(k.files) == maxMarks {
			return errTooManyBarriers
		}
		f, err := os.OpenFile(filepath.Join(k.dir, strconv.Itoa(len(k.files))), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		n, k.files = len(k.files), append(k.files, f)
	}
	if _, err := k.files[n].WriteAt([]byte{'b'}, 0); err != nil {
		k.free = append(k.free, n)
		return err
	}
	k.busy[strconv.Itoa(n)] = id
	return nil
}

// seen takes a marker's write event: the barrier it was for, if any; the
// file is free again.
func (k *marks) seen(name string) (uint64, bool) {
	id, ok := k.busy[name]
	if ok {
		delete(k.busy, name)
		n, _ := strconv.Atoi(name)
		k.free = append(k.free, n)
	}
	return id, ok
}

// lost completes every barrier in flight: their events may be lost.
func (k *marks) lost() []uint64 {
	var ids []uint64
	for name := range k.busy {
		id, _ := k.seen(name)
		ids = append(ids, id)
	}
	return ids
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
// reached, events were lost, nothing is watched, or the file system does
// not report what others change.
func (a *watcherActor) partial() bool {
	return a.limited || a.lost || a.w == nil || a.marks == nil || !a.ready || a.blind != ""
}

// removeMarks closes the marker files and removes the directory (in a
// reaper goroutine).
func (a *watcherActor) removeMarks() {
	if k := a.marks; k != nil {
		a.marks = nil
		// Lives for the closes and one removal; joined by the Reaper.
		a.cfg.Reaper.Go(func() {
			for _, f := range k.files {
				_ = f.Close()
			}
			_ = os.RemoveAll(k.dir)
		})
	}
}
