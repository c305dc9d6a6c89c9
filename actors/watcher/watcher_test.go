package watcher_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/watcher"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// watchProbe is an actor system (the harness, which checks for leaks at
// cleanup), a watcher on a temporary workspace and a probe receiving its
// batches.
type watchProbe struct {
	*actortest.Harness
	ws      string
	watcher *actor.PID
	batches chan *messages.FilesChanged
	warns   *warnCounter
}

// portable runs the tests on fsnotify's source (TestWatcherPortable).
var portable bool

// TestWatcherPortable runs the watcher's tests on fsnotify, the source
// where the watcher does not read inotify itself.
func TestWatcherPortable(t *testing.T) {
	portable = true
	defer func() { portable = false }()
	for name, test := range map[string]func(*testing.T){
		"ReportsChangesInOneBatch":        TestWatcherReportsChangesInOneBatch,
		"CoalescesAndIgnores":             TestWatcherCoalescesAndIgnores,
		"WatchesNewAndRenamedDirectories": TestWatcherWatchesNewAndRenamedDirectories,
		"MaxDirs":                         TestWatcherMaxDirs,
		"DropsBeyondPendingBound":         TestWatcherDropsBeyondPendingBound,
	} {
		t.Run(name, test)
	}
}

// newWatchProbe lays out files (path -> content; a path ending in '/' is
// a directory) in a new workspace and starts a watcher on it, ready.
func newWatchProbe(t *testing.T, files []string, edit func(*watcher.Config)) *watchProbe {
	p := &watchProbe{Harness: actortest.New(t), ws: t.TempDir(),
		batches: make(chan *messages.FilesChanged, 1000), warns: &warnCounter{}}
	for _, f := range files {
		p.make(f)
	}
	probe := p.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if m, ok := ctx.Message().(*messages.FilesChanged); ok {
			select {
			case p.batches <- m:
			default:
				t.Errorf("probe: too many batches")
			}
		}
	}))
	cfg := watcher.Config{Workspace: p.ws, Target: probe, Reaper: p.Reaper,
		Debounce: 200 * time.Millisecond, Logger: slog.New(p.warns), Portable: portable}
	if edit != nil {
		edit(&cfg)
	}
	p.watcher = p.Sys.Root.Spawn(watcher.NewProps(cfg))
	p.Track(p.watcher) // stopped by the harness at cleanup
	p.Track(probe)
	testenv.Eventually(t, 10*time.Second, "watcher ready", func() bool { return p.watchStatus().Ready })
	return p
}

func (p *watchProbe) path(rel string) string { return filepath.Join(p.ws, filepath.FromSlash(rel)) }

// make creates a file ("a/b.txt") or a directory ("a/b/") with its parents.
func (p *watchProbe) make(rel string) {
	p.T.Helper()
	if rel[len(rel)-1] == '/' {
		p.check(os.MkdirAll(p.path(rel), 0o755))
		return
	}
	p.check(os.MkdirAll(filepath.Dir(p.path(rel)), 0o755))
	p.check(os.WriteFile(p.path(rel), []byte("x"), 0o644))
}

func (p *watchProbe) check(err error) {
	p.T.Helper()
	if err != nil {
		p.T.Fatal(err)
	}
}

func (p *watchProbe) watchStatus() *messages.WatcherStatus {
	p.T.Helper()
	return p.Ask(p.watcher, &messages.GetWatcherStatus{}).(*messages.WatcherStatus)
}

// next awaits the next batch and returns its changes as "type path"
// strings, paths relative to the workspace.
func (p *watchProbe) next() []string {
	p.T.Helper()
	_, out := p.nextBatch()
	return out
}

// nextBatch awaits the next batch and returns it with its changes as next
// does.
func (p *watchProbe) nextBatch() (*messages.FilesChanged, []string) {
	p.T.Helper()
	select {
	case b := <-p.batches:
		if b.Workspace != p.ws {
			p.T.Errorf("batch workspace = %q, want %q", b.Workspace, p.ws)
		}
		var out []string
		for _, c := range b.Changes {
			rel, _ := filepath.Rel(p.ws, c.Path)
			if c.URI != paths.URI(c.Path) {
				p.T.Errorf("change %s has URI %q", c.Path, c.URI)
			}
			if c.Dir {
				rel += "/" // a directory: made, or deleted with what was below it
			}
			out = append(out, c.Type.String()+" "+filepath.ToSlash(rel))
		}
		return b, out
	case <-time.After(10 * time.Second):
		p.T.Fatal("timed out waiting for a FilesChanged batch")
		return nil, nil
	}
}

// until collects batches until every wanted change was seen; it returns
// every change seen.
func (p *watchProbe) until(want ...string) []string {
	p.T.Helper()
	missing := make(map[string]bool)
	for _, w := range want {
		missing[w] = true
	}
	var seen []string
	for len(missing) > 0 {
		for _, c := range p.next() {
			delete(missing, c)
			seen = append(seen, c)
		}
	}
	return seen
}

// warnCounter is a slog handler counting warnings.
type warnCounter struct {
	mu    sync.Mutex
	warns []string
}

func (w *warnCounter) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnCounter) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *warnCounter) WithGroup(string) slog.Handler            { return w }
func (w *warnCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		w.mu.Lock()
		w.warns = append(w.warns, r.Message)
		w.mu.Unlock()
	}
	return nil
}

func (w *warnCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.warns)
}

func TestWatcherReportsChangesInOneBatch(t *testing.T) {
	p := newWatchProbe(t, []string{"a.txt", "c.txt", "sub/b.txt"}, nil)
	p.make("new.txt")
	p.check(os.WriteFile(p.path("a.txt"), []byte("changed"), 0o644))
	p.check(os.Remove(p.path("sub/b.txt")))
	p.check(os.Rename(p.path("c.txt"), p.path("d.txt")))

	want := []string{"changed a.txt", "deleted c.txt", "created d.txt", "created new.txt", "deleted sub/b.txt"}
	if diff := cmp.Diff(want, p.next()); diff != "" {
		t.Errorf("batch (-want +got):\n%s", diff)
	}
}

func TestWatcherCoalescesAndIgnores(t *testing.T) {
	p := newWatchProbe(t, []string{"a.txt", ".git/HEAD", "node_modules/m/index.js", "bazel-out/x"}, nil)
	// Created then deleted within the window: nothing.
	p.make("tmp.txt")
	p.check(os.Remove(p.path("tmp.txt")))
	// Pure chmod: nothing.
	p.check(os.Chmod(p.path("a.txt"), 0o600))
	// Inside ignored directories, old and new: nothing.
	p.make(".git/index")
	p.make("node_modules/m/index2.js")
	p.make("bazel-out/y")
	p.make("build/out.o")
	p.make("sub/dist/bundle.js")
	// Deleted then created: changed; changed then deleted: deleted.
	p.check(os.Remove(p.path("a.txt")))
	p.make("a.txt")
	p.make("sentinel.txt")
	p.check(os.Remove(p.path("sentinel.txt")))
	p.make("sentinel.txt")

	got := p.next()
	want := []string{"changed a.txt", "created sentinel.txt", "created sub/"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batch (-want +got):\n%s", diff)
	}
	p.make("sub/dist/more.js")
	p.make("last.txt")
	if diff := cmp.Diff([]string{"created last.txt"}, p.next()); diff != "" {
		t.Errorf("second batch (-want +got):\n%s", diff)
	}
}

// TestWatcherSaysWhenPathsMoved: a batch of writes to existing files says
// no path moved (the router keeps the paths it resolved), while a batch
// with a path deleted and made again says so, though it reports the path
// as changed: a link replaced by another leads elsewhere.
func TestWatcherSaysWhenPathsMoved(t *testing.T) {
	p := newWatchProbe(t, []string{"a.txt", "b.txt", "dir/c.txt"}, nil)
	for i := range 3 {
		p.check(os.WriteFile(p.path("a.txt"), []byte(fmt.Sprint("write ", i)), 0o644))
		b, changes := p.nextBatch()
		if b.Moved || !slices.Equal(changes, []string{"changed a.txt"}) {
			t.Errorf("write %d: batch %v, moved %v; want [changed a.txt], not moved", i, changes, b.Moved)
		}
	}
	p.check(os.Remove(p.path("b.txt")))
	p.check(os.Symlink(p.path("dir/c.txt"), p.path("b.txt")))
	for seen := []string{}; !slices.Contains(seen, "changed b.txt") && !slices.Contains(seen, "created b.txt"); {
		b, changes := p.nextBatch()
		if !b.Moved {
			t.Errorf("batch %v after b.txt was replaced by a link: not moved", changes)
		}
		seen = append(seen, changes...)
	}
}

func TestWatcherWatchesNewAndRenamedDirectories(t *testing.T) {
	p := newWatchProbe(t, []string{"old/inner/"}, nil)
	p.check(os.Mkdir(p.path("fresh"), 0o755))
	p.until("created fresh/") // the batch comes once the directory is watched
	p.make("fresh/f.go")
	if diff := cmp.Diff([]string{"created fresh/f.go"}, p.next()); diff != "" {
		t.Errorf("file in a new directory (-want +got):\n%s", diff)
	}

	// A tree made at once: what predates its watches is reported too.
	p.make("x/y/z/g.go")
	p.until("created x/", "created x/y/", "created x/y/z/", "created x/y/z/g.go")

	// A renamed directory: the watches below it report the new names.
	p.check(os.Rename(p.path("old"), p.path("moved")))
	p.until("deleted old/", "created moved/", "created moved/inner/")
	p.make("moved/inner/h.go")
	if diff := cmp.Diff([]string{"created moved/inner/h.go"}, p.next()); diff != "" {
		t.Errorf("file in a renamed directory (-want +got):\n%s", diff)
	}
	// root, fresh, x, x/y, x/y/z, moved, moved/inner
	if st := p.watchStatus(); st.Dirs != 7 || st.Limited {
		t.Errorf("status = %+v, want 7 directories, not limited", st)
	}
	// Removed: its files one by one, then the directory itself, a
	// directory; a file removed is not one.
	p.check(os.RemoveAll(p.path("x")))
	p.until("deleted x/", "deleted x/y/", "deleted x/y/z/", "deleted x/y/z/g.go")
	p.check(os.Remove(p.path("fresh/f.go")))
	if diff := cmp.Diff([]string{"deleted fresh/f.go"}, p.next()); diff != "" {
		t.Errorf("file removed (-want +got):\n%s", diff)
	}
}

func TestWatcherMaxDirs(t *testing.T) {
	p := newWatchProbe(t, []string{"a/", "b/", "c/", "d/", "e/"}, func(c *watcher.Config) { c.MaxDirs = 3 })
	st := p.watchStatus()
	if st.Dirs != 3 || !st.Limited || st.Workspace != p.ws {
		t.Errorf("status = %+v, want 3 directories, limited", st)
	}
	p.check(os.Mkdir(p.path("f"), 0o755))
	p.until("created f")
	if st := p.watchStatus(); st.Dirs != 3 || !st.Limited {
		t.Errorf("status after a new directory = %+v, want 3 directories, limited", st)
	}
	if n := p.warns.count(); n != 1 {
		t.Errorf("%d warnings (%q), want 1", n, p.warns.warns)
	}
}

// TestWatcherDropsBeyondPendingBound: beyond MaxPending paths in one
// window, changes are dropped and counted. The window is longer than the
// test, so how fast the files are created does not matter.
func TestWatcherDropsBeyondPendingBound(t *testing.T) {
	const bound, extra = 100, 50
	p := newWatchProbe(t, []string{"many/"}, func(c *watcher.Config) { c.Debounce, c.MaxPending = time.Hour, bound })
	for i := range bound + extra {
		f, err := os.Create(p.path(fmt.Sprintf("many/f%05d", i)))
		p.check(err)
		p.check(f.Close())
	}
	testenv.Eventually(t, 20*time.Second, "changes beyond the bound dropped", func() bool {
		return p.watchStatus().Dropped == extra
	})
}

func TestWatcherStopJoinsEverything(t *testing.T) {
	sys, reaper := lifecycle.NewSystem(nil), &lifecycle.Reaper{}
	base := testenv.Actors(sys)
	ws := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pid := sys.Root.Spawn(watcher.NewProps(watcher.Config{Workspace: ws, Target: sys.NewLocalPID("nobody"), Reaper: reaper}))
	if _, err := sys.Root.RequestFuture(pid, &messages.GetWatcherStatus{}, 10*time.Second).Result(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a", "b", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stopAndJoin(t, sys, pid, reaper)
	testenv.Eventually(t, 30*time.Second, "actor registry back to its baseline", func() bool {
		return testenv.Actors(sys) == base
	})
	sys.Shutdown()
}

// stopAndJoin stops the watcher pid and waits for its goroutines.
func stopAndJoin(t *testing.T, sys *actor.ActorSystem, pid *actor.PID, reaper *lifecycle.Reaper) {
	t.Helper()
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !reaper.Wait(ctx) {
		t.Error("Reaper.Wait: the watcher's goroutines did not end")
	}
}

// TestWatcherHoldsAFileBeingWritten: a file open for writing is not
// reported half written, not even in a barrier's batch; its change goes
// out once its writer closes it, or after MaxWriteHold if it never does.
func TestWatcherHoldsAFileBeingWritten(t *testing.T) {
	p := newWatchProbe(t, []string{"a.txt", "b.txt", "c.txt"}, func(c *watcher.Config) {
		c.MaxWriteHold = 2 * time.Second
	})
	a, err := os.OpenFile(p.path("a.txt"), os.O_WRONLY|os.O_TRUNC, 0o644)
	p.check(err)
	defer a.Close()
	_, err = a.WriteString("half")
	p.check(err)
	p.make("c.txt") // written and closed: goes out
	p.Sys.Root.Send(p.watcher, &messages.WatchBarrier{ID: 7})
	// The batches up to the barrier's (a debounce window may end first on
	// a loaded machine) name c.txt and not a.txt.
	var got []string
	for barrier := false; !barrier; {
		select {
		case b := <-p.batches:
			barrier = slices.Contains(b.Barriers, 7)
			for _, c := range b.Changes {
				got = append(got, filepath.Base(c.Path))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no batch for the barrier")
		}
	}
	if !cmp.Equal(got, []string{"c.txt"}) {
		t.Errorf("changes up to the barrier %v; want only c.txt (a.txt is half written)", got)
	}
	_, err = a.WriteString(" and the rest")
	p.check(err)
	p.check(a.Close())
	if got := p.until("changed a.txt"); !cmp.Equal(got, []string{"changed a.txt"}) {
		t.Errorf("after the close: %v", got)
	}

	// A writer that keeps the file open: reported after MaxWriteHold.
	b, err := os.OpenFile(p.path("b.txt"), os.O_WRONLY|os.O_APPEND, 0o644)
	p.check(err)
	defer b.Close()
	start := time.Now()
	_, err = b.WriteString("more")
	p.check(err)
	p.until("changed b.txt")
	if held := time.Since(start); held < 2*time.Second {
		t.Errorf("b.txt reported after %v, before its hold ended (2s) with its writer still open", held)
	}
}

// TestWatcherSweepsMarkersOfDeadProcesses: a process killed before it
// could remove its barrier marker directory leaves it in the temporary
// directory; the next watcher to start removes it, and no directory of a
// process still running. Its own directory is gone once it stops.
func TestWatcherSweepsMarkersOfDeadProcesses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadDir := filepath.Join(tmp, fmt.Sprintf("agentlsp-barrier-%d-123", dead.Process.Pid))
	liveDir := filepath.Join(tmp, fmt.Sprintf("agentlsp-barrier-%d-456", os.Getppid()))
	otherDir := filepath.Join(tmp, "agentlsp-barrier-789") // no owner in its name: not ours to judge
	for _, d := range []string{deadDir, liveDir, otherDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	markers := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("agentlsp-barrier-%d-*", os.Getpid())))
		return m
	}

	sys, reaper := lifecycle.NewSystem(nil), &lifecycle.Reaper{}
	pid := sys.Root.Spawn(watcher.NewProps(watcher.Config{Workspace: t.TempDir(), Target: sys.NewLocalPID("nobody"), Reaper: reaper}))
	if _, err := sys.Root.RequestFuture(pid, &messages.GetWatcherStatus{}, 10*time.Second).Result(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the dead process's marker directory removed", func() bool {
		_, err := os.Stat(deadDir)
		return errors.Is(err, fs.ErrNotExist)
	})
	for _, d := range []string{liveDir, otherDir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want it kept", filepath.Base(d), err)
		}
	}
	if m := markers(); len(m) != 1 {
		t.Errorf("the watcher's own marker directories = %v, want one", m)
	}
	stopAndJoin(t, sys, pid, reaper)
	if m := markers(); len(m) != 0 {
		t.Errorf("marker directories left after the watcher stopped: %v", m)
	}
	sys.Shutdown()
}

// TestWatcherWatchesPackagesWithIgnoredNames: a directory whose name is
// ignored as a build's output (build, out, dist, target) but holds Go or
// Python files is a package (go-ethereum's build/ci.go, an internal/build
// Go package, a Python package named build), which gopls or pyright
// reads: its changes are reported, a file created in it too, while a build
// directory without such files stays unwatched. Before, a definition into
// internal/build answered from gopls's first reading of the package for as
// long as it ran, and pyright's the same.
func TestWatcherWatchesPackagesWithIgnoredNames(t *testing.T) {
	p := newWatchProbe(t, []string{"go.mod", "internal/build/b.go", "build/out.o", "out/deep/x.go", "py/dist/tool.py"}, nil)
	p.check(os.WriteFile(p.path("internal/build/b.go"), []byte("package build\n"), 0o644))
	p.make("internal/build/c.go")
	p.make("py/dist/more.py")
	p.make("build/more.o")
	p.make("out/deep/y.go") // out holds no Go file itself: an output directory
	p.make("sentinel.txt")
	got := p.until("changed internal/build/b.go", "created internal/build/c.go", "created py/dist/more.py", "created sentinel.txt")
	for _, c := range got {
		if strings.Contains(c, "build/more.o") || strings.Contains(c, "out/deep") {
			t.Errorf("a change in an output directory was reported: %s (all: %v)", c, got)
		}
	}
	// A Go package directory moved in with its files is watched too. (One
	// made empty and filled after the watcher looked into it is not: the
	// walk found no Go file there.)
	staged := t.TempDir()
	p.check(os.MkdirAll(filepath.Join(staged, "target"), 0o755))
	p.check(os.WriteFile(filepath.Join(staged, "target", "main.go"), []byte("package main\n"), 0o644))
	p.make("cmd/")
	p.until("created cmd/")
	p.check(os.Rename(filepath.Join(staged, "target"), p.path("cmd/target")))
	p.until("created cmd/target/main.go")
	p.check(os.WriteFile(p.path("cmd/target/main.go"), []byte("package main\n"), 0o644))
	p.until("changed cmd/target/main.go")
	// Deleted: reported, as any directory.
	p.check(os.RemoveAll(p.path("internal/build")))
	p.until("deleted internal/build/")
}

// TestWatcherReportsAVendorDirectoryReplaced: go mod vendor removes vendor/
// and writes it again; the watcher does not look into vendor/, but reports
// that replacement as the deletion of the directory, so that gopls forgets
// what it read below it and the router re-reads the documents open there.
// Before, a definition into a vendored module named its old line after the
// module was vendored again.
func TestWatcherReportsAVendorDirectoryReplaced(t *testing.T) {
	p := newWatchProbe(t, []string{"go.mod", "vendor/modules.txt", "vendor/example.com/x/x.go", "sub/vendor/y.go"}, nil)
	p.check(os.RemoveAll(p.path("vendor")))
	p.make("vendor/modules.txt")
	p.make("vendor/example.com/x/x.go")
	p.until("deleted vendor/")
	// A file changed in place below vendor/ is still not looked at.
	p.make("vendor/example.com/x/more.go")
	p.make("sentinel.txt")
	if got := p.until("created sentinel.txt"); slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "vendor") }) {
		t.Errorf("a change below vendor/ was reported: %v", got)
	}
}

// TestWatcherReportsChangesUnderSymlinkedDirectories: a directory of the
// workspace reached through a symbolic link (lib -> shared/real) is
// watched once, under its real path; a change there is reported under the
// link's path too, which is how gopls knows the file when a package is
// imported through the link. Before, gopls kept lib/a.go as it first read
// it, and a definition into it named the old line.
func TestWatcherReportsChangesUnderSymlinkedDirectories(t *testing.T) {
	p := newWatchProbe(t, []string{"shared/real/a.go"}, func(c *watcher.Config) {
		if err := os.Symlink("shared/real", filepath.Join(c.Workspace, "lib")); err != nil {
			t.Fatal(err)
		}
	})
	p.check(os.WriteFile(p.path("shared/real/a.go"), []byte("package lib\n"), 0o644))
	p.make("shared/real/b.go")
	p.until("changed shared/real/a.go", "changed lib/a.go", "created shared/real/b.go", "created lib/b.go")
}

// TestWatcherWatchesAPackageFilledLater: a directory with an output's
// name that holds no source file when the watcher first sees it (made
// empty by a git checkout, then filled; or empty at the start) is watched
// alone, without what lies below it, until a Go or Python file appears in
// it: then it is watched as a package and the file is reported.
func TestWatcherWatchesAPackageFilledLater(t *testing.T) {
	p := newWatchProbe(t, []string{"go.mod", "build/", "cmd/"}, nil)
	p.make("build/main.go")
	p.until("created build/main.go")
	p.check(os.Mkdir(p.path("cmd/target"), 0o755))
	p.make("sentinel1.txt") // the watcher has seen cmd/target, empty
	p.until("created sentinel1.txt")
	p.make("cmd/target/obj/x.o") // below it, not a package's: not reported
	p.make("cmd/target/t.go")
	got := p.until("created cmd/target/t.go")
	p.check(os.WriteFile(p.path("cmd/target/t.go"), []byte("package target\n"), 0o644))
	got = append(got, p.until("changed cmd/target/t.go")...)
	for _, c := range got {
		if strings.Contains(c, "obj/x.o") && !strings.HasPrefix(c, "created") {
			t.Errorf("unexpected change %s", c)
		}
	}
}
