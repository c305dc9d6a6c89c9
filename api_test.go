package agentlsp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestCancellationIsAtomic: an Edit whose context is already done sends
// nothing; one cancelled while it waits says its change went out, at
// which version; a retry of the same text reports that text's error (the
// abandoned attempt did not move the baseline).
func TestCancellationIsAtomic(t *testing.T) {
	rt, ws, record := fakeRuntime(t, "--push-delay", "2s")
	s := rt.Session("agent")
	main := filepath.Join(ws, "main.py")
	base, _ := os.ReadFile(main)
	broken := string(base) + "x # ERROR: from the retried text\n"

	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Edit(done, main, broken)
	var ee *agentlsp.EditError
	if !errors.As(err, &ee) || ee.Applied || !errors.Is(err, context.Canceled) {
		t.Fatalf("Edit with a done context = %v, want an EditError, not applied", err)
	}
	if strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "didOpen") {
		t.Errorf("the server got the text of an edit whose context was done")
	}

	// Cancelled once the server has the text, while the edit waits for
	// diagnostics (published 2 s later).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	edited := make(chan error, 1)
	// One edit, joined below.
	go func() {
		_, err := s.Edit(ctx, main, broken)
		edited <- err
	}()
	testenv.Eventually(t, 30*time.Second, "the edit's text reached the server", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "didOpen")
	})
	cancel()
	err = <-edited
	if !errors.As(err, &ee) || !ee.Applied || len(ee.Versions) != 1 || ee.Versions[0].Version == 0 {
		t.Fatalf("Edit cancelled while waiting = %v, want applied with its version", err)
	}
	res, err := s.Edit(context.Background(), main, broken)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 ||
		res.Files[0].Diagnostics[0].Message != "from the retried text" {
		t.Errorf("retry of the same text = %s %+v, want its error (the abandoned attempt's is still new)", res.Status, res.Files[0])
	}
	if res.Servers[0].Version != ee.Versions[0].Version {
		t.Errorf("retry at version %d, want %d: the same text is not sent twice", res.Servers[0].Version, ee.Versions[0].Version)
	}
}

// TestAPIEdges: invalid UTF-8 is ErrNotText; a position past the end is
// ErrPastEnd; answers keep relative paths relative; calls after Shutdown
// are ErrShutdown; a document can be created in memory and saved.
func TestAPIEdges(t *testing.T) {
	rt, ws, _ := fakeRuntime(t)
	s := rt.Session("agent")
	ctx := context.Background()
	if _, err := s.Edit(ctx, "main.py", "bad \xff"); !errors.Is(err, agentlsp.ErrNotText) {
		t.Errorf("Edit(invalid UTF-8) = %v, want ErrNotText", err)
	}
	if _, err := s.Hover(ctx, "main.py", agentlsp.Position{Line: 99}); !errors.Is(err, agentlsp.ErrPastEnd) {
		t.Errorf("Hover past the end = %v, want ErrPastEnd", err)
	}
	res, err := s.Edit(ctx, "main.py", "x = 1 # ERROR: here\n")
	if err != nil || res.Files[0].Path != "main.py" {
		t.Errorf("Edit(main.py) path = %q, %v; want main.py (relative, as given)", res.Files[0].Path, err)
	}
	if _, err := s.Edit(ctx, "new.py", "y = 2\n"); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("Edit of a missing file = %v, want ErrFileNotFound", err)
	}
	res, err = s.Edit(ctx, "new.py", "y = 2 # ERROR: in memory\n", agentlsp.WithCreate())
	if err != nil || res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 {
		t.Fatalf("Edit(WithCreate) = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.py")); !os.IsNotExist(err) {
		t.Errorf("the document in memory is on disk before Save: %v", err)
	}
	if err := s.Save(ctx, "new.py"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "new.py")); err != nil || string(b) != "y = 2 # ERROR: in memory\n" {
		t.Errorf("after Save: %q, %v", b, err)
	}
	shutdown(t, rt)
	if _, err := s.Edit(ctx, "main.py", "z\n"); !errors.Is(err, agentlsp.ErrShutdown) {
		t.Errorf("Edit after Shutdown = %v, want ErrShutdown", err)
	}
	if _, err := s.Hover(ctx, "main.py", agentlsp.Position{}); !errors.Is(err, agentlsp.ErrShutdown) {
		t.Errorf("Hover after Shutdown = %v, want ErrShutdown", err)
	}
}

// TestDiagnosticsWorkersAreBounded: one Diagnostics call of 40 files
// waits for at most 8 at once (it once started a goroutine per file).
func TestDiagnosticsWorkersAreBounded(t *testing.T) {
	rt, ws, _ := fakeRuntime(t, "--push-delay", "300ms")
	var files []string
	for i := range 40 {
		name := fmt.Sprintf("f%02d.py", i)
		os.WriteFile(filepath.Join(ws, name), []byte("x = 1\n"), 0o644)
		files = append(files, name)
	}
	base := runtime.NumGoroutine()
	done := make(chan struct{})
	go func() { // ends when the call returns
		defer close(done)
		if _, err := rt.Session("agent").Diagnostics(context.Background(), files); err != nil {
			t.Error(err)
		}
	}()
	peak := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(5 * time.Millisecond):
			peak = max(peak, runtime.NumGoroutine()-base)
		}
	}
	if peak > 8+20 { // 8 workers, the call's own, and the runtime's few
		t.Errorf("%d more goroutines during a call of 40 files, want about 8", peak)
	}
}

// TestCrashingServerSaysSoAtOnce: a server that exits as soon as it starts
// makes the answers say it crashed (with its stderr), not time out: once
// it crashed, a call that times out while it starts again says so. (The
// very first call may time out before the first crash, on a loaded
// machine: "still starting" is then the truth.)
func TestCrashingServerSaysSoAtOnce(t *testing.T) {
	rt, _, _ := fakeRuntime(t, "--exit-on", "initialized", "--stderr", "fatal: no config")
	s := rt.Session("agent")
	first, err := s.Diagnostics(context.Background(), []string{"main.py"}, agentlsp.WithTimeout(2*time.Second))
	if err == nil {
		t.Logf("first answer: %s %q", first[0].Status, first[0].Detail)
	}
	testenv.Eventually(t, time.Minute, "the server crashed once", func() bool {
		infos, err := rt.Servers(context.Background())
		return err == nil && len(infos) == 1 && (infos[0].Incarnation > 1 || infos[0].Broken)
	})
	reports, err := s.Diagnostics(context.Background(), []string{"main.py"}, agentlsp.WithTimeout(2*time.Second))
	if err == nil && (reports[0].Status == messages.StatusTimeout || !strings.Contains(reports[0].Detail, "fatal: no config")) {
		t.Errorf("answer after the crash = %s %q, want not_ready or server_broken naming the crash and its stderr", reports[0].Status, reports[0].Detail)
	}
	if err != nil && !strings.Contains(err.Error(), "fatal: no config") {
		t.Errorf("answer after the crash failed with %v, want the server's stderr in it", err)
	}
}

// TestWorkspaceThroughASymlink: a workspace given through a symlink
// accepts absolute paths spelled through that symlink.
func TestWorkspaceThroughASymlink(t *testing.T) {
	_, ws, _ := fakeRuntime(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: link, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(t, rt)
	if _, err := rt.Editor().Position(filepath.Join(link, "main.py"), 1, 1, ""); err != nil {
		t.Errorf("a path through the workspace's symlink: %v", err)
	}
}

// TestEditReportsWhatTheSessionWasNotTold: an agent writes its change to
// disk and the runtime takes it from there first (another session's call
// synced it and got its diagnostics); the agent's Edit of that same text
// still reports the text's error, which this session was never told.
func TestEditReportsWhatTheSessionWasNotTold(t *testing.T) {
	rt, ws, _ := fakeRuntime(t)
	agent, other := rt.Session("agent"), rt.Session("other")
	main := filepath.Join(ws, "main.py")
	base, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if res, err := agent.Edit(ctx, main, string(base)); err != nil || res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 0 {
		t.Fatalf("first Edit = %+v, %v", res, err)
	}
	broken := string(base) + "x # ERROR: written to disk first\n"
	if err := os.WriteFile(main, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	seen, err := other.Diagnostics(ctx, []string{main})
	if err != nil || len(seen[0].Diagnostics) != 1 {
		t.Fatalf("the other session's Diagnostics = %+v, %v; want the error on disk", seen, err)
	}
	res, err := agent.Edit(ctx, main, broken)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 ||
		res.Files[0].Diagnostics[0].Message != "written to disk first" {
		t.Errorf("Edit of the text already on the servers = %s %+v, want its error", res.Status, res.Files[0])
	}
}

// TestPullAnsweredWhileLoadingIsAskedAgain: a server that answers pulls
// with nothing while it loads its workspace (rust-analyzer during
// "Fetching": a file with a type error was answered fresh and clean) is
// asked again once the load ends, when its definition has an IndexWait,
// and the answer has the file's error.
func TestPullAnsweredWhileLoadingIsAskedAgain(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	if err := os.WriteFile(filepath.Join(ws, "broken.py"), []byte("x = 1 # ERROR: boom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) { s.IndexWait = config.Duration(20 * time.Second) },
		"--pull", "--no-push", "--progress", "2s", "--empty-while-progress", "--delay", "textDocument/diagnostic=300ms")
	reports, err := rt.Session("agent").Diagnostics(context.Background(), []string{"broken.py"},
		agentlsp.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r := reports[0]
	if r.Status != messages.StatusFresh || len(r.Diagnostics) != 1 || r.Diagnostics[0].Message != "boom" {
		t.Errorf("report %s %q %+v, want fresh with the error boom", r.Status, r.Detail, r.Diagnostics)
	}
}

// TestReferencesWaitForTheServersReadyLine: a server that answers
// references with nothing until it has found the workspace's files (as
// pyright does, logging "Found N source files" then) is asked once it has
// logged its ready line (ReadyLog), and the answer is not marked possibly
// incomplete; without ReadyLog, its first answer is taken as it is.
func TestReferencesWaitForTheServersReadyLine(t *testing.T) {
	for _, tc := range []struct {
		name     string
		readyLog string
		refs     int
		indexing bool
	}{
		{"with its ready line", "^fake: found the workspace's files$", 1, false},
		{"without", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
			responses := filepath.Join(t.TempDir(), "responses.json")
			os.WriteFile(responses, []byte(`{"textDocument/references": [{"uri":"`+paths.URI(filepath.Join(ws, "util.py"))+`",
				"range":{"start":{"line":0,"character":4},"end":{"line":0,"character":10}}}]}`), 0o644)
			rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) { s.ReadyLog = tc.readyLog },
				"--ready-after", "1s", "--responses", responses)
			ans, err := rt.Session("agent").References(context.Background(), "main.py", agentlsp.Position{Line: 0, Character: 18})
			if err != nil {
				t.Fatal(err)
			}
			if len(ans.Locations) != tc.refs || ans.Indexing != tc.indexing {
				t.Errorf("References = %d locations (indexing %v), want %d (indexing %v)", len(ans.Locations),
					ans.Indexing, tc.refs, tc.indexing)
			}
		})
	}
}

// TestUnservedFilesAnswerTheSameEveryTime: a file whose server cannot
// start (its binary is missing) answers a server_broken report naming the
// server and its error on every Diagnostics call, the first (the wait
// learns the server is broken) and every later one (the router knows it
// and fails the sync at once), alone, beside other files, and from many
// goroutines at once; a file no server serves answers no_server. Before,
// only the first call about the broken file answered a report: the later
// ones answered a report without a status and an error.
func TestUnservedFilesAnswerTheSameEveryTime(t *testing.T) {
	ws := t.TempDir()
	for name, text := range map[string]string{"pyproject.toml": "", "a.py": "x = 1\n", "b.py": "y = 2\n", "notes.txt": "hi\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt := ghostRuntime(t, ws)
	want := map[string][2]string{
		"a.py":      {"server_broken", "ghost: agentlsp: server broken: ghost"},
		"b.py":      {"server_broken", "build ghost-lsp"},
		"notes.txt": {"no_server", "no language server for this file: notes.txt (configured extensions: .py)"},
	}
	check := func(call string, files []string, reports []messages.FileReport, err error) {
		if err != nil {
			t.Errorf("%s %q: error %v, want a report for each file", call, files, err)
			return
		}
		if len(reports) != len(files) {
			t.Fatalf("%s %q: %d reports, want %d", call, files, len(reports), len(files))
		}
		for i, r := range reports {
			w := want[files[i]]
			if r.Path != files[i] || string(r.Status) != w[0] || !strings.Contains(r.Detail, w[1]) ||
				r.URI != paths.URI(filepath.Join(ws, files[i])) {
				t.Errorf("%s %q: report %d = %+v, want %s at %s saying %q", call, files, i, r, w[0], files[i], w[1])
			}
		}
	}
	s := rt.Session("agent")
	ctx := context.Background()
	for i, files := range [][]string{{"a.py"}, {"a.py"}, {"b.py", "a.py", "notes.txt"}, {"notes.txt"}} {
		reports, err := s.Diagnostics(ctx, files)
		check(fmt.Sprintf("call %d", i), files, reports, err)
	}
	done := make(chan struct{})
	for g := range 16 {
		// One caller; joined below.
		go func() {
			defer func() { done <- struct{}{} }()
			files := [][]string{{"a.py"}, {"notes.txt", "b.py"}}[g%2]
			reports, err := rt.Session(fmt.Sprintf("s%d", g%4)).Diagnostics(ctx, files)
			check(fmt.Sprintf("goroutine %d", g), files, reports, err)
		}()
	}
	for range 16 {
		<-done
	}
}

// TestEndDuringACallLeavesNothingOpen: Session.End while a Diagnostics
// call of the session is in flight, then the call returns: no file stays
// open on the server for the ended session. Before, the call's later
// files were opened for the session after End, and stayed open for as
// long as the runtime ran (16 on gopls in the tester's script).
func TestEndDuringACallLeavesNothingOpen(t *testing.T) {
	rt, ws, record := fakeRuntime(t, "--push-delay", "200ms")
	var files []string
	for i := range 16 {
		name := fmt.Sprintf("f%02d.py", i)
		if err := os.WriteFile(filepath.Join(ws, name), []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	ctx := context.Background()
	s := rt.Session("agent")
	done := make(chan struct{})
	go func() { // ends when the call returns
		defer close(done)
		_, _ = s.Diagnostics(ctx, files) // its files may be closed under it: any answer will do
	}()
	testenv.Eventually(t, time.Minute, "every file opened", func() bool {
		return strings.Count(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/didOpen") >= len(files)
	})
	if err := s.End(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	testenv.Eventually(t, 30*time.Second, "no file open once the call returned", func() bool {
		infos, err := rt.Servers(ctx)
		return err == nil && len(infos) == 1 && infos[0].OpenFiles == 0
	})
}
