package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
)

// TestConfigFileChangeRestartsTheServer: a change on disk to one of the
// server's ConfigFiles restarts it (a planned restart: no crash counted,
// no budget spent, so a budget of one crash never breaks it), the new
// process reads the file, the document is re-opened, and a request in
// flight is answered by the next process. A touch right after the change
// is a new version: nothing the old process said describes it. Other
// files, and a configuration file below the root that the patterns do
// not name, restart nothing.
func TestConfigFileChangeRestartsTheServer(t *testing.T) {
	h := actortest.New(t)
	root := t.TempDir()
	srv, _ := actortest.FakeServer(t, "--pull", "--no-push", "--config-file", "fake.toml", "--delay", "textDocument/hover=500ms")
	srv.ConfigFiles, srv.MaxRestarts = []string{"fake.toml", "sub/*.cfg"}, 1
	pid := h.Spawn(srv, root, nil)
	h.Open(pid, docURI, "one\n")
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled })

	changed := func(rel string, typ messages.FileChangeType) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		reportChange(h, pid, p, typ, false)
	}
	changed("other.fake", messages.FileChanged)
	changed("deeper/fake.toml", messages.FileCreated)
	changed("sub/deeper/x.cfg", messages.FileCreated)
	if st := h.Status(pid); st.Incarnation != 1 || st.Reconfigured != 0 {
		t.Fatalf("after changes of other files: incarnation %d, reconfigured %d; want 1, 0", st.Incarnation, st.Reconfigured)
	}

	if err := os.WriteFile(filepath.Join(root, "fake.toml"), []byte("strict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := hoverInBackground(h, pid)
	for deadline := time.Now().Add(10 * time.Second); h.Status(pid).Sent == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hover was never sent")
		}
	}
	changed("fake.toml", messages.FileCreated)
	touched := h.Ask(pid, &messages.TouchDocument{URI: docURI}).(*messages.DocumentSynced)
	if touched.Version < 2 && touched.PullView == 0 {
		t.Errorf("touch after the change = %+v, want a new version or a new pull", touched)
	}
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	got := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Incarnation == 2 && d.Pulled })
	if len(got.Diagnostics) == 0 || got.Diagnostics[0].Message != "config: strict" {
		t.Errorf("the restarted server's diagnostics = %+v, want the configuration's error first", got.Diagnostics)
	}
	if r := <-answer; r == nil || r.Err != nil || !strings.Contains(string(r.Result), "fake hover") {
		t.Errorf("hover in flight at the restart: %+v, want the next process's answer", r)
	}

	// Two more changes at once: the second may come within the first's
	// restart, which it then holds until the configuration is quiet, so
	// they make one or two restarts.
	changed("sub/x.cfg", messages.FileChanged)
	changed("fake.toml", messages.FileDeleted)
	st := h.Status(pid)
	for deadline := time.Now().Add(30 * time.Second); st.State != messages.StateRunning || st.Incarnation < 3; st = h.Status(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("after two more changes: state %v, incarnation %d; want running again", st.State, st.Incarnation)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st.Restarts != 0 || st.Broken || st.Reconfigured != st.Incarnation-1 || st.Reconfigured > 3 || st.OpenDocuments[docURI] == 0 {
		t.Errorf("status = restarts %d, broken %v, reconfigured %d in incarnation %d, documents %v; want no crash, two or three planned restarts, the document open",
			st.Restarts, st.Broken, st.Reconfigured, st.Incarnation, st.OpenDocuments)
	}
}

// TestConfigFileChangeWhileStartingRestartsAgain: a change while the
// server starts (it may have read the file already) starts it again.
func TestConfigFileChangeWhileStartingRestartsAgain(t *testing.T) {
	h := actortest.New(t)
	root := t.TempDir()
	srv, _ := actortest.FakeServer(t, "--config-file", "fake.toml")
	srv.ConfigFiles = []string{"fake.toml"}
	pid := h.Spawn(srv, root, nil)
	p := filepath.Join(root, "fake.toml")
	h.AwaitState(messages.StateStarting, 1, 30*time.Second)
	if err := os.WriteFile(p, []byte("strict\n"), 0o644); err != nil { // after the start began
		t.Fatal(err)
	}
	reportChange(h, pid, p, messages.FileCreated, false)
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	if st := h.Status(pid); st.Incarnation != 2 || st.Reconfigured != 1 {
		t.Errorf("incarnation %d, reconfigured %d; want the start abandoned for a second", st.Incarnation, st.Reconfigured)
	}
}

// TestConfigFileStormHoldsTheRestart: a tool that rewrites a
// configuration file again and again restarted the server once per
// change (40 restarts here), and a server that needs a second to start
// never answered. Now the first change restarts at once, the next ones
// stop the server until the file has been quiet: it is held in
// StateError with ErrReconfiguring (what diagnostics and timeouts say),
// a request sent meanwhile waits, and one restart after the storm
// serves it with the file's last text. The bound on restarts is counted
// from the pauses the storm really had, so a slow machine cannot fail it.
func TestConfigFileStormHoldsTheRestart(t *testing.T) {
	h := actortest.New(t)
	root := t.TempDir()
	srv, _ := actortest.FakeServer(t, "--pull", "--no-push", "--config-file", "fake.toml")
	srv.ConfigFiles = []string{"fake.toml"}
	pid := h.Spawn(srv, root, nil)
	h.Open(pid, docURI, "one\n")
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)

	p := filepath.Join(root, "fake.toml")
	pauses, last := 0, time.Now()
	var held *messages.ServerStatus
	for i := range 40 {
		if err := os.WriteFile(p, []byte(fmt.Sprintf("v%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		reportChange(h, pid, p, messages.FileChanged, false)
		if st := h.Status(pid); st.State == messages.StateError && held == nil {
			held = st
		}
		time.Sleep(50 * time.Millisecond)
		if now := time.Now(); now.Sub(last) >= 400*time.Millisecond {
			pauses++ // the machine stalled: the configuration may have been quiet
		}
		last = time.Now()
	}
	if held == nil || !errors.Is(held.LastErr, messages.ErrReconfiguring) || !strings.Contains(held.LastErr.Error(), "fake.toml changed again") {
		t.Errorf("during the storm: status %+v, want StateError with ErrReconfiguring naming fake.toml", held)
	}
	answer := hoverInBackground(h, pid)
	got := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool {
		return d.Pulled && len(d.Diagnostics) > 0 && d.Diagnostics[0].Message == "config: v39"
	})
	if r := <-answer; r == nil || r.Err != nil {
		t.Errorf("hover sent while the restart was held: %+v, want the next process's answer", r)
	}
	st := h.Status(pid)
	if bound := 2 + pauses; st.Reconfigured > bound || st.Restarts != 0 || st.State != messages.StateRunning {
		t.Errorf("after 40 changes (%d pauses): reconfigured %d, restarts %d, state %v; want at most %d planned restarts, no crash, running",
			pauses, st.Reconfigured, st.Restarts, st.State, bound)
	}
	t.Logf("40 changes: %d planned restarts, incarnation %d of the diagnostics %v", st.Reconfigured, got.Incarnation, got.Diagnostics[0].Message)
}

// TestConfigFileGlobsAtAnyDepth: a ConfigFiles pattern "**/NAME" names
// the file at the root and at any depth below it (tsconfig.json and
// compile_flags.txt nearer to a file decide its settings), and a
// directory deleted may have held one. With path.Match, "**" matched
// exactly one directory: a tsconfig.json at the root or two levels down
// restarted nothing.
func TestConfigFileGlobsAtAnyDepth(t *testing.T) {
	h := actortest.New(t)
	root := t.TempDir()
	pid := runningWithConfigFiles(t, h, root, "**/proj.cfg")
	steps := []struct {
		rel     string
		typ     messages.FileChangeType
		dir     bool
		restart bool
	}{
		{"a/proj.cfgx", messages.FileCreated, false, false},
		{"a/b/proj.cfg", messages.FileCreated, false, true},
		{"proj.cfg", messages.FileChanged, false, true},
		{"a/b", messages.FileDeleted, true, true},
	}
	want := 1
	for _, s := range steps {
		p := filepath.Join(root, filepath.FromSlash(s.rel))
		reportChange(h, pid, p, s.typ, s.dir)
		if s.restart {
			want++
			h.AwaitState(messages.StateRunning, want, 30*time.Second)
		}
		if st := h.Status(pid); st.Incarnation != want || st.Reconfigured != want-1 {
			t.Errorf("after %s (type %d): incarnation %d, reconfigured %d; want %d, %d", s.rel, s.typ, st.Incarnation, st.Reconfigured, want, want-1)
		}
	}
}

// TestConfigFileSeenTwiceRestartsOnce: a change of a configuration file
// named alone is seen twice, by the stat at a document message and by the
// watcher's report that comes after it; the server restarts once. The
// report had restarted it a second time (held for reconfigureGap, since
// it came so soon after the first).
func TestConfigFileSeenTwiceRestartsOnce(t *testing.T) {
	h := actortest.New(t)
	root := t.TempDir()
	pid := runningWithConfigFiles(t, h, root, "fake.toml")

	p := filepath.Join(root, "fake.toml")
	if err := os.WriteFile(p, []byte("strict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Ask(pid, &messages.TouchDocument{URI: docURI})
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	reportChange(h, pid, p, messages.FileCreated, false)
	if st := h.Status(pid); st.Incarnation != 2 || st.Reconfigured != 1 || st.State != messages.StateRunning {
		t.Errorf("after the watcher's report of the change the stat saw: incarnation %d, reconfigured %d, state %v; want 2, 1, running",
			st.Incarnation, st.Reconfigured, st.State)
	}

	// A change after the process started restarts it, as before.
	if err := os.WriteFile(p, []byte("loose, and longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reportChange(h, pid, p, messages.FileChanged, false)
	h.AwaitState(messages.StateRunning, 3, 30*time.Second)
}

// hoverInBackground asks pid for a hover of the document and returns where
// its answer (nil when none came) is sent: its goroutine ends with the
// answer or the request's 30 s bound.
func hoverInBackground(h *actortest.Harness, pid *actor.PID) <-chan *messages.Response {
	answer := make(chan *messages.Response, 1)
	go func() {
		params, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": docURI}, "position": map[string]int{}})
		res, _ := h.Sys.Root.RequestFuture(pid, &messages.Request{ID: actortest.RequestIDs.Add(1),
			Method: "textDocument/hover", Params: params, Timeout: 20 * time.Second}, 30*time.Second).Result()
		r, _ := res.(*messages.Response)
		answer <- r
	}()
	return answer
}

// runningWithConfigFiles spawns the fake at root with patterns as its
// ConfigFiles and the document open, and waits until it runs.
func runningWithConfigFiles(t *testing.T, h *actortest.Harness, root string, patterns ...string) *actor.PID {
	srv, _ := actortest.FakeServer(t)
	srv.ConfigFiles = patterns
	pid := h.Spawn(srv, root, nil)
	h.Open(pid, docURI, "one\n")
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	return pid
}

// reportChange sends pid the watcher's report of a change of path p.
func reportChange(h *actortest.Harness, pid *actor.PID, p string, typ messages.FileChangeType, dir bool) {
	h.Sys.Root.Send(pid, &messages.FilesChanged{Changes: []messages.FileChange{{Path: p, URI: paths.URI(p), Type: typ, Dir: dir}}})
}
