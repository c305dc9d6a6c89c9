// Package reliability is the fault-injection suite: the scripted fake
// server (and real gopls where it matters) crashes, hangs and misbehaves
// while sessions work; every case checks that each call got exactly one
// answer (a result or a typed error) within its timeout, that nothing
// leaked (goroutines, actors, child processes: testenv.Main and the
// per-test checks), and that document state is intact afterwards.
package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// env is a runtime over a workspace of n Python files served by the fake.
type env struct {
	t      *testing.T
	rt     *agentlsp.Runtime
	ws     string
	files  []string
	record string
}

func newEnv(t *testing.T, n int, edit func(*config.Server, *agentlsp.Config), flags ...string) *env {
	t.Helper()
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.WriteFile(filepath.Join(ws, "pyproject.toml"), []byte("[project]\nname = \"x\"\n"), 0o644)
	e := &env{t: t, ws: ws, record: filepath.Join(t.TempDir(), "record.jsonl")}
	for i := 0; i < n; i++ {
		p := filepath.Join(ws, fmt.Sprintf("f%03d.py", i))
		os.WriteFile(p, []byte("x = 1\n"), 0o644)
		e.files = append(e.files, p)
	}
	cmd, args, fenv := testenv.FakeServer(t, append([]string{"--record", e.record}, flags...)...)
	srv := &config.Server{ID: "fake", Command: cmd, Args: args, Env: fenv,
		Extensions: map[string]string{".py": "python"}, RootMarkers: []string{"pyproject.toml"},
		StartupTimeout: config.Duration(5 * time.Second), RequestTimeout: config.Duration(5 * time.Second),
		ShutdownTimeout: config.Duration(2 * time.Second), MaxInFlight: 256}
	cfg := agentlsp.Config{Workspace: ws, NoWatch: true, DiagnosticsTimeout: 5 * time.Second,
		Policy: supervisor.Policy{BackoffBase: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond}}
	if edit != nil {
		edit(srv, &cfg)
	}
	cfg.Registry = config.RegistryOf(srv)
	rt, err := agentlsp.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	t.Cleanup(e.shutdown)
	return e
}

func (e *env) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.rt.Shutdown(ctx); err != nil {
		e.t.Errorf("Shutdown: %v", err)
	}
	testenv.NoProcesses(e.t)
}

// call runs f with a deadline and fails the test if it does not return in
// time: every request must get exactly one answer within its timeout.
func (e *env) call(timeout time.Duration, what string, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		if errors.Is(err, context.DeadlineExceeded) {
			e.t.Errorf("%s: no answer within %v", what, timeout)
		}
		return err
	case <-time.After(timeout + 5*time.Second):
		e.t.Fatalf("%s: call did not return %v after its deadline", what, 5*time.Second)
		return nil
	}
}

// serverPID is the fake's process id, 0 when none runs.
func (e *env) serverPID() int {
	servers, err := e.rt.Servers(context.Background())
	if err != nil || len(servers) == 0 {
		return 0
	}
	return servers[0].PID
}

// serverText reads the fake's copy of a document through a raw request.
func (e *env) serverText(path string) (string, error) {
	params, _ := json.Marshal(map[string]string{"uri": "file://" + path})
	res, err := e.ask(&messages.FileRequest{ID: uint64(time.Now().UnixNano()), Path: path, Method: "fake/documentText", Params: params})
	if err != nil {
		return "", err
	}
	fr := res.(*messages.FileResponse)
	if fr.Err != nil || len(fr.Results) != 1 || fr.Results[0].Err != nil {
		return "", fmt.Errorf("documentText: %+v", fr)
	}
	var d struct{ Text string }
	json.Unmarshal(fr.Results[0].Result, &d)
	return d.Text, nil
}

func (e *env) ask(msg any) (any, error) {
	return e.rt.System().Root.RequestFuture(e.rt.Router(), msg, 30*time.Second).Result()
}

// isTyped reports whether err is one of the errors a caller can act on.
func isTyped(err error) bool {
	for _, k := range []error{messages.ErrServerBroken, messages.ErrServerCrashed, messages.ErrStartupTimeout,
		messages.ErrRequestTimeout, messages.ErrOverloaded, messages.ErrCanceled, agentlsp.ErrShutdown, agentlsp.ErrNoResult} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// kind names an error's sentinel, for counting outcomes.
func kind(err error) string {
	if err == nil {
		return "ok"
	}
	for _, k := range []error{messages.ErrServerBroken, messages.ErrServerCrashed, messages.ErrStartupTimeout,
		messages.ErrRequestTimeout, messages.ErrOverloaded, messages.ErrCanceled, agentlsp.ErrShutdown, agentlsp.ErrNoResult} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return "untyped: " + err.Error()
}
