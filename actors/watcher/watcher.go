package watcher

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/fsnotify/fsnotify"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Config configures one watcher actor. Zero values are the documented
// defaults.
type Config struct {
	// Workspace is the root watched with its directories (made absolute).
	Workspace string
	// Target receives every *messages.FilesChanged batch; required.
	Target *actor.PID
	// Reaper joins the actor's goroutines; required.
	Reaper *lifecycle.Reaper
	// MaxDirs bounds the watched directories (default 4096). Reaching it
	// logs one warning, and the status says Limited.
	MaxDirs int
	// MaxPending bounds the changed paths pending in one batch (default
	// 10000); more are dropped, counted and logged.
	MaxPending int
	// MaxWriteHold bounds how long a changed file still open for writing
	// is held back from batches, waiting for its writer to close it
	// (default 1s; Linux's own inotify source only).
	MaxWriteHold time.Duration
	// Debounce is how long changes are coalesced into one batch, counted
	// from the first change (default 100ms).
	Debounce time.Duration
	// Ignore lists directory names to ignore besides
	// paths.DefaultIgnoredDirs and bazel-*. Nothing in an ignored directory is watched or reported.
	Ignore []string
	// Logger for the actor's own logs; nil discards.
	Logger *slog.Logger
	// Probe, if set, is kept up to date so that the target can tell that
	// nothing is on its way without a barrier (see Probe).
	Probe *Probe
	// Portable watches with fsnotify even on Linux, where the watcher
	// reads inotify itself; a Probe then never says Quiet.
	Portable bool
	// FileSystem names the workspace's file system when the watcher
	// cannot see the changes others make to it (NFS, SMB, 9p, FUSE, ...;
	// see blind_linux.go), else "". Every batch is then Partial, so that
	// the target compares what it holds with the disk. Nil: statfs.
	FileSystem func(dir string) string
}

const (
	defaultWatchMaxDirs  = 4096
	defaultWatchDebounce = 100 * time.Millisecond
	defaultMaxWriteHold  = time.Second
	defaultMaxPending    = 10000 // paths pending in one batch
	maxQueuedWalks       = 1024  // new or renamed directories waiting for a walk
	maxReadBatch         = 256   // fsnotify events forwarded in one message
	maxChmodSizes        = 10000 // file sizes kept to tell a resize from a chmod
)

// watcherGens numbers watcher instances, so that an instance restarted
// after a panic ignores the messages of its predecessor's goroutines.
var watcherGens atomic.Uint64

// NewProps returns the props of a watcher actor, one per workspace
// root. It watches the root and its directories (at most MaxDirs, ignored
// names skipped), coalesces changes for Debounce and sends them to Target
// as one *messages.FilesChanged, sorted by path; directories created or
// deleted are changes too (servers' registrations filter them; see
// WatchMatcher). It answers
// messages.GetWatcherStatus. Directory walks and the fsnotify reader run
// in goroutines joined by cfg.Reaper; Receive never blocks. NewProps does
// not block and is safe for concurrent use.
func NewProps(cfg Config) *actor.Props {
	if abs, err := filepath.Abs(cfg.Workspace); err == nil {
		cfg.Workspace = abs
	}
	if cfg.MaxDirs <= 0 {
		cfg.MaxDirs = defaultWatchMaxDirs
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = defaultMaxPending
	}
	if cfg.MaxWriteHold <= 0 {
		cfg.MaxWriteHold = defaultMaxWriteHold
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = defaultWatchDebounce
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.FileSystem == nil {
		cfg.FileSystem = blindFS
	}
	ignored := paths.NewFilter(cfg.Ignore)
	return actor.PropsFromProducer(func() actor.Actor {
		return &watcherActor{cfg: cfg, ignored: ignored}
	})
}

// Private messages from the watcher's goroutines and timer, tagged with
// the generation of the instance that started them.
type (
	watchEvents struct { // a batch of the source's events, classified, or its error
		gen    uint64
		seq    uint64 // the source's number of the batch
		events []watchEvent
		err    error
	}
	watchWalked struct { // a walk ended
		gen          uint64
		added        []string // directories now watched
		found        []string // entries found below new directories: created
		foundDropped int      // entries found beyond MaxPending
		limited      bool     // the bound (MaxDirs, or the kernel's: err) was reached
		err          error
		links        map[string]string // symbolic links to directories of the workspace: link -> real path
		shallow      []string          // directories with an output's name watched alone (watcherActor.shallow)
	}
	watchFlush struct{ gen uint64 } // a debounce window ended
)

// watchEvent is one change as the reader saw it.
type watchEvent struct {
	mark    string // a marker file was written (no path then)
	path    string
	typ     messages.FileChangeType
	dir     bool // a created directory, to walk
	renamed bool // deleted by a rename: the watches below it are stale
	writing bool // written to, by a writer whose close will be reported
	closed  bool // a writer closed the file: no change by itself
}

// watcherActor owns one fsnotify watcher, the set of watched directories,
// the pending changes and the debounce timer. The reader goroutine
// forwards fsnotify's events; walk goroutines (one at a time) add watches.
type watcherActor struct {
	cfg     Config
	ignored paths.Filter
	gen     uint64
	send    func(any) // delivers a message to this actor from any goroutine
	w       source
	stop    chan struct{} // closed on stop: cuts a walk short
	err     error

	dirs map[string]struct{} // watched directories
	// links are the symbolic links to directories of the workspace the
	// walks met (link -> real path, at most maxLinks): a change below the
	// real path is reported below each link too (withLinks).
	links map[string]string
	// shallow are the directories with an output's name (build, ...) that
	// held no source file when seen: each is watched alone, nothing below
	// it, until a Go or Python file appears in it, which makes it a
	// package, walked and watched like any other (at most maxShallow).
	shallow  map[string]struct{}
	ready    bool // the initial walk is done
	limited  bool
	warned   bool
	walking  bool
	queue    []string // new directories to walk
	prunes   []string // renamed directories whose stale watches to remove
	pending  map[string]messages.FileChangeType
	gone     map[string]struct{}  // pending deletions of watched directories (FileChange.Dir)
	writing  map[string]time.Time // pending paths still open for writing, since their first write
	timer    *time.Timer
	flushDue bool // the window ended during a walk: flush when it ends
	dropped  int  // changes dropped, in total
	dropping int  // changes dropped in this window, logged when it ends

	marks    *marks   // barrier markers, watched with the workspace
	barriers []uint64 // barriers whose markers were seen: flushed with the next batch
	lost     bool     // events were lost since the last batch (a queue overflow)
	moved    bool     // a path was created, deleted or renamed since the last batch
	blind    string   // the workspace's file system, when others change it unseen (Config.FileSystem)
	handled  uint64   // the source's last batch handled
}

// Receive dispatches one message; it never blocks.
func (a *watcherActor) Receive(ctx actor.Context) {
	defer a.publish()
	switch m := ctx.Message().(type) {
	case *actor.Started:
		a.onStarted(ctx)
	case *actor.Stopping, *actor.Restarting:
		a.onStopping()
	case *watchEvents:
		if m.gen == a.gen {
			a.onEvents(ctx, m)
		}
	case *watchWalked:
		if m.gen == a.gen {
			a.onWalked(ctx, m)
		}
	case *watchFlush:
		if m.gen == a.gen {
			a.onFlush(ctx)
		}
	case *messages.GetWatcherStatus:
		ctx.Respond(a.status())
	case *messages.WatchBarrier:
		a.onBarrier(ctx, m)
	}
}

// onStarted creates the fsnotify watcher, starts its reader and the walk
// of the workspace.
func (a *watcherActor) onStarted(ctx actor.Context) {
	root, self := ctx.ActorSystem().Root, ctx.Self()
	a.send = func(m any) { root.Send(self, m) }
	a.gen = watcherGens.Add(1)
	a.dirs = make(map[string]struct{})
	a.links = make(map[string]string)
	a.shallow = make(map[string]struct{})
	a.pending = make(map[string]messages.FileChangeType)
	a.gone = make(map[string]struct{})
	a.writing = make(map[string]time.Time)
	w, err := newSource(a.cfg.Portable)
	if err != nil {
		a.err, a.ready = fmt.Errorf("watcher: watching %s: %w", a.cfg.Workspace, err), true
		a.cfg.Logger.Error("watcher: cannot watch the workspace; changes on disk go unseen",
			"workspace", a.cfg.Workspace, "err", err, "advice", "raise fs.inotify.max_user_instances")
		return
	}
	a.w, a.stop = w, make(chan struct{})
	if a.blind = a.cfg.FileSystem(a.cfg.Workspace); a.blind != "" {
		a.cfg.Logger.Warn("watcher: the workspace is on a file system whose changes made elsewhere raise no events; "+
			"every call compares the open files with the disk", "workspace", a.cfg.Workspace, "fs", a.blind)
	}
	a.marks = a.makeMarks(w)
	gen, send, marks := a.gen, a.send, ""
	if a.marks != nil {
		marks = a.marks.dir
	}
	// The reader lives until w is closed (onStopping), which closes its
	// channels; joined by the Reaper.
	a.cfg.Reaper.Go(func() { readEvents(w, marks, gen, send) })
	a.queue = append(a.queue, a.cfg.Workspace)
	a.walkNext()
}

// onStopping stops the timer and closes the fsnotify watcher, which ends
// the reader and cuts a walk short. Pending changes are dropped.
func (a *watcherActor) onStopping() {
	a.removeMarks()
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	if w := a.w; w != nil {
		close(a.stop)
		a.w, a.stop = nil, nil
		// Close waits for fsnotify's own read goroutine, which may be
		// handing an error to our reader: short, but not for Receive to
		// wait on. Ends with that goroutine; joined by the Reaper.
		a.cfg.Reaper.Go(func() { _ = w.Close() })
	}
}

// onEvents records the visible changes, queues walks of new directories
// and forgets deleted ones.
func (a *watcherActor) onEvents(ctx actor.Context, m *watchEvents) {
	a.handled = m.seq
	if m.err != nil { // rare: fsnotify reports a queue overflow once per overflow
		advice := "none"
		if errors.Is(m.err, fsnotify.ErrEventOverflow) {
			advice = "changes were lost; raise fs.inotify.max_queued_events"
		}
		a.cfg.Logger.Warn("watcher: file watching error", "workspace", a.cfg.Workspace, "err", m.err, "advice", advice)
		a.lost = true    // the next batch cannot prove it is complete
		clear(a.writing) // their closes may be lost too
		if a.marks != nil {
			a.barriers = append(a.barriers, a.marks.lost()...)
		}
	}
	for _, e := range m.events {
		if e.mark != "" {
			if id, ok := a.marks.seen(e.mark); ok {
				a.barriers = append(a.barriers, id)
			}
			continue
		}
		if !e.closed && e.typ != messages.FileChanged {
			// Where a path leads may have changed, even through an
			// ignored directory, whose changes are not reported.
			a.moved = true
		}
		if a.vendorReplaced(e) {
			a.gone[e.path] = struct{}{} // a directory: servers forget what lay below it
			a.record(e.path, messages.FileDeleted)
			continue
		}
		a.noteShallow(e)
		if !a.visible(e.path, e.dir, e.typ) {
			continue
		}
		if e.closed {
			a.writeEnded(e.path)
			continue
		}
		switch {
		case e.typ == messages.FileDeleted:
			if a.forgetDir(e.path, e.renamed) {
				a.gone[e.path] = struct{}{}
			}
		case e.dir:
			a.enqueue(&a.queue, e.path)
		}
		a.record(e.path, e.typ)
		if e.writing {
			a.writeBegan(e.path)
		}
	}
	a.walkNext()
	if len(a.barriers) > 0 {
		a.flushNow(ctx)
	}
}

// forgetDir drops a deleted directory and those below it from the watched
// set, and reports whether path was one. fsnotify drops the watch on the
// directory itself; after a rename the watches below it live on under
// stale names, so a walk removes them.
func (a *watcherActor) forgetDir(path string, renamed bool) bool {
	if _, ok := a.dirs[path]; !ok {
		return false
	}
	maps.DeleteFunc(a.dirs, func(d string, _ struct{}) bool { return d == path || strings.HasPrefix(d, path+"/") })
	if renamed {
		a.enqueue(&a.prunes, path)
	}
	return true
}

// enqueue adds path to a walk queue; past the bound it is left alone
// (a new directory stays unwatched: Limited).
func (a *watcherActor) enqueue(q *[]string, path string) {
	if len(*q) >= maxQueuedWalks {
		a.noteLimited(nil)
		return
	}
	*q = append(*q, path)
}

// walkNext starts a walk of the queued directories unless one runs. Walks
// after the initial one report what they find as created: it may predate
// the watch.
func (a *watcherActor) walkNext() {
	if a.walking || a.w == nil || len(a.queue)+len(a.prunes) == 0 {
		return
	}
	j := &walkJob{w: a.w, stop: a.stop, ignored: a.ignored, workspace: a.cfg.Workspace, maxDirs: a.cfg.MaxDirs, maxFound: a.cfg.MaxPending,
		roots: a.queue, prunes: a.prunes, known: maps.Clone(a.dirs), report: a.ready}
	a.queue, a.prunes, a.walking = nil, nil, true
	gen, send := a.gen, a.send
	// Lives until the walk is done: at most MaxDirs directories, cut short
	// when the actor stops (stop closed, Add fails); joined by the Reaper.
	a.cfg.Reaper.Go(func() { send(j.run(gen)) })
}

// onWalked records the directories added and the entries found, logs the
// bound once, flushes a window that ended meanwhile and walks on.
func (a *watcherActor) onWalked(ctx actor.Context, m *watchWalked) {
	a.walking, a.ready = false, true
	for _, d := range m.added {
		a.dirs[d] = struct{}{}
	}
	for _, d := range m.shallow {
		_, have := a.shallow[d]
		switch {
		case paths.SourcePackage(d): // filled since the walk looked
			a.promote(d)
		case have || len(a.shallow) < maxShallow:
			a.shallow[d] = struct{}{}
		default:
			_ = a.w.Remove(d) // over the bound: not followed, so not watched
		}
	}
	for link, real := range m.links {
		if len(a.links) < maxLinks {
			a.links[link] = real
		}
	}
	if m.limited {
		a.noteLimited(m.err)
	}
	for _, p := range m.found { // new to the workspace, even if a write was seen first
		if a.pending[p] == messages.FileChanged {
			delete(a.pending, p)
		}
		a.record(p, messages.FileCreated)
	}
	a.dropped += m.foundDropped
	a.dropping += m.foundDropped
	if a.flushDue {
		a.flush(ctx)
	}
	a.walkNext()
}

// noteLimited marks the watcher limited; the first time, it logs why.
func (a *watcherActor) noteLimited(err error) {
	a.limited = true
	if a.warned {
		return
	}
	a.warned = true
	advice := "raise MaxDirs or add ignores for generated or vendored directories"
	if err != nil {
		advice = "raise fs.inotify.max_user_watches or add ignores for generated or vendored directories"
	}
	a.cfg.Logger.Warn("watcher: directory limit reached; changes in unwatched directories go unseen",
		"workspace", a.cfg.Workspace, "maxDirs", a.cfg.MaxDirs, "watched", len(a.dirs), "err", err, "advice", advice)
}

func (a *watcherActor) status() *messages.WatcherStatus {
	return &messages.WatcherStatus{Workspace: a.cfg.Workspace, Dirs: len(a.dirs), Limited: a.limited,
		Dropped: a.dropped, Ready: a.ready, Err: a.err, Blind: a.blind}
}

// The watcher's goroutines and timer can deliver after it stopped, when
// nothing waits for them: protoactor does not log them as dead letters.
func (*watchEvents) IgnoreDeadLetterLogging() {}
func (*watchWalked) IgnoreDeadLetterLogging() {}
func (*watchFlush) IgnoreDeadLetterLogging()  {}
