package agentlsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// fakeRuntime starts a runtime on a copy of the pyproj testdata with the
// fake server serving .py files.
func fakeRuntime(t *testing.T, flags ...string) (*agentlsp.Runtime, string, string) {
	t.Helper()
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	rt, record := fakeRuntimeIn(t, ws, nil, flags...)
	return rt, ws, record
}

// fakeRuntimeIn is fakeRuntime on a workspace of the caller's, with the
// fake's definition changed by edit (nil: as it is).
func fakeRuntimeIn(t *testing.T, ws string, edit func(*config.Server), flags ...string) (*agentlsp.Runtime, string) {
	t.Helper()
	fake, record := fakeServer(t, flags...)
	if edit != nil {
		edit(fake)
	}
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(fake), NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, rt) })
	return rt, record
}

// fakeServer defines the fake server for .py files with flags, recording
// what it receives in the file it returns.
func fakeServer(t *testing.T, flags ...string) (*config.Server, string) {
	t.Helper()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, args, env := testenv.FakeServer(t, append([]string{"--record", record}, flags...)...)
	return &config.Server{
		ID: "fake", Command: cmd, Args: args, Env: env,
		Extensions: map[string]string{".py": "python"}, RootMarkers: []string{"pyproject.toml"},
	}, record
}

// ghostRuntime starts a runtime on ws whose one server, "ghost", serves
// .py files under pyproject.toml and cannot start: its binary is missing
// (install hint "build ghost-lsp"). It is shut down at the test's end.
func ghostRuntime(t *testing.T, ws string) *agentlsp.Runtime {
	t.Helper()
	ghost := &config.Server{ID: "ghost", Command: filepath.Join(ws, "ghost-lsp"), InstallHint: "build ghost-lsp",
		Extensions: map[string]string{".py": "python"}, RootMarkers: []string{"pyproject.toml"}}
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(ghost), NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, rt) })
	return rt
}

func shutdown(t *testing.T, rt *agentlsp.Runtime) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rt.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	testenv.NoProcesses(t)
}

func TestEditHoverDefinitionWithFake(t *testing.T) {
	responses := filepath.Join(t.TempDir(), "responses.json")
	os.WriteFile(responses, []byte(`{"textDocument/definition": [{"targetUri":"file:///x/util.py",
		"targetRange":{"start":{"line":0,"character":0},"end":{"line":1,"character":16}},
		"targetSelectionRange":{"start":{"line":0,"character":4},"end":{"line":0,"character":10}}}]}`), 0o644)
	rt, ws, _ := fakeRuntime(t, "--responses", responses)
	s := rt.Session("agent")
	ctx := context.Background()
	main := filepath.Join(ws, "main.py")

	edited := "from util import helper # ERROR: oops\n"
	res, err := s.Edit(ctx, main, edited)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != messages.StatusFresh || len(res.Files) != 1 || res.Files[0].Path != main ||
		len(res.Files[0].Diagnostics) != 1 || res.Files[0].Diagnostics[0].Message != "oops" {
		t.Fatalf("Edit = %+v", res)
	}
	var b strings.Builder
	ed := rt.Editor()
	ed.SetText(main, edited) // the edit is not on disk
	ed.Render(&b, res.Files)
	want := "<diagnostics file=\"main.py\" status=\"fresh\">\nERROR [1:27] oops (fake/E1)\n</diagnostics>\n"
	if b.String() != want {
		t.Errorf("Render = %q, want %q", b.String(), want)
	}

	hover, err := s.Hover(ctx, main, agentlsp.Position{Line: 0, Character: 18}) // in the edited text
	if err != nil || hover.Hover == nil || hover.Hover.Text != "fake hover" || !cmp.Equal(hover.Servers, []string{"fake"}) {
		t.Errorf("Hover = %+v, %v", hover, err)
	}
	def, err := s.Definition(ctx, "main.py", agentlsp.Position{Line: 0, Character: 18})
	want2 := []results.Location{{URI: "file:///x/util.py", Path: "/x/util.py",
		Range: agentlsp.Range{Start: agentlsp.Position{Line: 0, Character: 4}, End: agentlsp.Position{Line: 0, Character: 10}}}}
	if err != nil || !cmp.Equal(def.Locations, want2) {
		t.Errorf("Definition = %+v, %v; want %+v", def, err, want2)
	}
}

func TestBadInputErrors(t *testing.T) {
	rt, ws, _ := fakeRuntime(t)
	s := rt.Session("agent")
	ctx := context.Background()
	os.WriteFile(filepath.Join(ws, "binary.py"), []byte("x = 1\x00\x01"), 0o644)
	os.WriteFile(filepath.Join(ws, "latin1.py"), []byte("x = '\xe9'\n"), 0o644)
	os.Mkdir(filepath.Join(ws, "dir.py"), 0o755)
	tests := []struct {
		path string
		pos  agentlsp.Position
		want error
		text string
	}{
		{"../outside.py", agentlsp.Position{}, messages.ErrOutsideWorkspace, "outside the workspace"},
		{"missing.py", agentlsp.Position{}, messages.ErrFileNotFound, "does not exist"},
		{"dir.py", agentlsp.Position{}, messages.ErrIsDirectory, "directory"},
		{"binary.py", agentlsp.Position{}, agentlsp.ErrNotText, "not a UTF-8 text file"},
		{"latin1.py", agentlsp.Position{}, agentlsp.ErrNotText, "not a UTF-8 text file"},
		{"pyproject.toml", agentlsp.Position{}, messages.ErrNoServer, "configured extensions: .py"},
		{"main.py", agentlsp.Position{Line: 99}, nil, "line 100 is past the end of the file (3 lines)"},
		{"main.py", agentlsp.Position{Line: 0, Character: 80}, nil, "line 1: textpos: column 81 is past the end of line"},
	}
	for _, tc := range tests {
		_, err := s.Hover(ctx, tc.path, tc.pos)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("Hover(%s, %+v) error = %v, want %v containing %q", tc.path, tc.pos, err, tc.want, tc.text)
		}
	}
}

func TestCancelAndShutdownAnswerInFlight(t *testing.T) {
	rt, ws, record := fakeRuntime(t, "--hang-on", "textDocument/hover")
	s := rt.Session("agent")
	main := filepath.Join(ws, "main.py")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Hover(ctx, main, agentlsp.Position{Line: 2, Character: 7})
		errc <- err
	}()
	testenv.Eventually(t, 20*time.Second, "hover reached the fake", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/hover")
	})
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Hover = %v", err)
	}
	testenv.Eventually(t, 10*time.Second, "$/cancelRequest at the fake", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "$/cancelRequest")
	})

	go func() {
		_, err := s.Hover(context.Background(), main, agentlsp.Position{Line: 2, Character: 7})
		errc <- err
	}()
	testenv.Eventually(t, 20*time.Second, "second hover reached the fake", func() bool {
		return strings.Count(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/hover") == 2
	})
	shutdown(t, rt)
	if err := <-errc; !errors.Is(err, agentlsp.ErrShutdown) {
		t.Errorf("Hover in flight at Shutdown = %v, want ErrShutdown", err)
	}
	if _, err := s.Hover(context.Background(), main, agentlsp.Position{}); !errors.Is(err, agentlsp.ErrShutdown) {
		t.Errorf("Hover after Shutdown = %v, want ErrShutdown", err)
	}
}

func TestPassiveBatchesReachTheChannel(t *testing.T) {
	rt, ws, _ := fakeRuntime(t)
	watcher := rt.Session("watcher").Batches()
	_, err := rt.Session("editor").Edit(context.Background(), filepath.Join(ws, "util.py"), "x # ERROR: seen by all\n")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-watcher:
		if len(b.Files) != 1 || b.Files[0].Path != filepath.Join(ws, "util.py") || b.Files[0].Diagnostics[0].Message != "seen by all" {
			raw, _ := json.Marshal(b)
			t.Errorf("batch = %s", raw)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no batch")
	}
}

// TestCloseAfterDelete: a file deleted on disk can still be closed, and
// an edit of a file no server handles is refused without leaving anything
// behind.
func TestCloseAfterDelete(t *testing.T) {
	rt, ws, record := fakeRuntime(t)
	s := rt.Session("agent")
	ctx := context.Background()
	util := filepath.Join(ws, "util.py")
	if err := s.Open(ctx, util); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "didOpen at the fake", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/didOpen")
	})
	os.Remove(util)
	if err := s.Close(ctx, util); err != nil {
		t.Errorf("Close of a deleted file = %v", err)
	}
	testenv.Eventually(t, 10*time.Second, "didClose at the fake", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/didClose")
	})
	if _, err := s.Edit(ctx, filepath.Join(ws, "pyproject.toml"), "x"); !errors.Is(err, messages.ErrNoServer) {
		t.Errorf("Edit of a file without a server = %v, want ErrNoServer", err)
	}
}

// Stopping a runtime loses the messages its servers' and watcher's
// goroutines send after their actors stopped (a server's exit, its last log
// lines, a batch of file events), which is as it should be: they are not
// logged as dead letters, even at DEBUG.
func TestShutdownLogsNoDeadLetters(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	fake, _ := fakeServer(t)
	var log testenv.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(fake), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Session("agent").Diagnostics(context.Background(), []string{filepath.Join(ws, "main.py")}); err != nil {
		t.Fatal(err)
	}
	shutdown(t, rt)
	if strings.Contains(log.String(), "[DeadLetter]") {
		t.Errorf("the log has dead letters:\n%s", log.String())
	}
}
