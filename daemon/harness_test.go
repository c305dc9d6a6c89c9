package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon/rundir"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// The test binary re-executed plays a daemon or a client: a process holds
// one protoactor remote (each remote.Start sets gRPC's global logger, a
// data race with every other remote running in the process).
const (
	roleEnv = "AGENTLSP_DAEMON_TEST_ROLE"
	wsEnv   = "AGENTLSP_DAEMON_TEST_WORKSPACE"
	idleEnv = "AGENTLSP_DAEMON_TEST_IDLE"
	// isolatedEnv names the test a re-executed test binary runs alone.
	isolatedEnv = "AGENTLSP_DAEMON_TEST_ISOLATED"
)

// isolate runs the calling test in a test process of its own (a process
// may start protoactor remote only once: see roleEnv) and reports whether
// the caller is that process; the caller returns when it is not.
func isolate(t *testing.T) bool {
	t.Helper()
	if os.Getenv(isolatedEnv) == t.Name() {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), isolatedEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
	return false
}

// TestMain runs the fake daemon and client roles, or the tests, then
// checks for leaked goroutines (goleak, through testenv.Main), child
// processes and actors.
func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "daemon":
		os.Exit(fakeDaemonMain())
	case "client":
		os.Exit(fakeClientMain())
	}
	testenv.Main(m)
}

const testVersion = "test-1"

// fakeDaemonMain serves a daemon on fake router and diagnostics actors
// that record what they get in records-PID.jsonl in the workspace, and
// hold requests while the workspace has a file named hold.
func fakeDaemonMain() int {
	ws := os.Getenv(wsEnv)
	ready := Ready()
	idle, _ := time.ParseDuration(os.Getenv(idleEnv))
	dir, err := rundir.Dir()
	if err != nil {
		ready(err)
		return 1
	}
	files := rundir.Files{Dir: dir, Key: rundir.Key(ws, testVersion)}
	lock, err := files.AcquireDaemon()
	if err != nil {
		ready(nil) // another daemon serves: what the client wanted
		return 0
	}
	defer lock.Release()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sys := lifecycle.NewSystem(nil)
	rec := &fileRecord{path: filepath.Join(ws, fmt.Sprintf("records-%d.jsonl", os.Getpid())), hold: filepath.Join(ws, "hold")}
	router := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &fakeActor{rec: rec} }))
	diag := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &fakeActor{rec: rec} }))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = Serve(ctx, ServeConfig{System: sys, Router: router, Diagnostics: diag, Workspace: ws,
		Version: testVersion, Files: files, Idle: idle, Logger: log, Ready: func(rundir.Entry) { ready(nil) }})
	_ = sys.Root.StopFuture(router).Wait()
	_ = sys.Root.StopFuture(diag).Wait()
	sys.Shutdown()
	if err != nil {
		ready(err)
		return 1
	}
	return 0
}

// fakeClientMain attaches to the workspace's daemon, opens a.go for
// session "agent", says "ready" on stdout and waits for stdin to close.
func fakeClientMain() int {
	ws := os.Getenv(wsEnv)
	reaper := &lifecycle.Reaper{}
	c, err := Dial(context.Background(), DialConfig{Workspace: ws, Version: testVersion, NoStart: true, Reaper: reaper})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	res, err := c.System.Root.RequestFuture(c.Router, &messages.SyncDocument{Session: "agent", Path: "a.go", Action: messages.SyncCurrent}, 10*time.Second).Result()
	if err != nil {
		fmt.Fprintln(os.Stderr, err, res)
		return 1
	}
	_, _ = c.System.Root.RequestFuture(c.Router, &messages.FileRequest{ID: 7, Path: "a.go", Method: "m"}, 10*time.Second).Result()
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = c.System.Root.StopFuture(c.Router).Wait()
	_ = c.System.Root.StopFuture(c.Diagnostics).Wait()
	reaper.Wait(context.Background())
	c.System.Shutdown()
	return 0
}

// env is one test's runtime directory and workspace; its daemons are
// processes (the test binary re-executed), stopped at the end.
type env struct {
	t         *testing.T
	idle      time.Duration // the daemons' idle timeout (default: one minute)
	files     rundir.Files
	workspace string
	mu        sync.Mutex
	pids      []int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir, err := rundir.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return newEnvIn(t, dir)
}

// sibling is another workspace with the same runtime directory.
func (e *env) sibling() *env { return newEnvIn(e.t, e.files.Dir) }

func newEnvIn(t *testing.T, dir string) *env {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, files: rundir.Files{Dir: dir, Key: rundir.Key(ws, testVersion)}, workspace: ws, idle: time.Minute}
	t.Cleanup(e.stopAll)
	return e
}

// startClient runs a client process (fakeClientMain) and waits until it
// holds a.go open; closing stdin ends it cleanly.
func (e *env) startClient() (*exec.Cmd, io.WriteCloser) {
	e.t.Helper()
	argv := e.roleCommand("client")
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		e.t.Fatalf("client process: %q", line)
	}
	return cmd, stdin
}

// roleCommand is the argv that runs the test binary in a role.
func (e *env) roleCommand(role string) []string {
	exe, _ := os.Executable()
	return []string{"/usr/bin/env", roleEnv + "=" + role, wsEnv + "=" + e.workspace, idleEnv + "=" + e.idle.String(), exe, "-test.run=^$"}
}

// start starts a daemon process (the clients' Start) and waits until it
// serves.
func (e *env) start(ctx context.Context) error {
	if err := Detach(ctx, e.roleCommand("daemon"), e.files.Log()); err != nil {
		return err
	}
	en, err := e.files.Wait(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.pids = append(e.pids, en.PID)
	e.mu.Unlock()
	return nil
}

// daemon returns the pid of the i-th daemon started, 0 if none.
func (e *env) daemon(i int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if i >= len(e.pids) {
		return 0
	}
	return e.pids[i]
}

// entry is the live daemon's entry.
func (e *env) entry() rundir.Entry {
	e.t.Helper()
	en, err := e.files.Find()
	if err != nil {
		e.t.Fatalf("no daemon: %v", err)
	}
	return en
}

// kill kills a daemon with SIGKILL and waits until it is gone.
func (e *env) kill(pid int) {
	e.t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		e.t.Fatal(err)
	}
	testenv.Eventually(e.t, 10*time.Second, "the killed daemon is gone", func() bool { return !alive(pid) })
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// stopAll stops every daemon the test started (SIGTERM, then SIGKILL).
func (e *env) stopAll() {
	e.mu.Lock()
	pids := e.pids
	e.pids = nil
	e.mu.Unlock()
	for _, pid := range pids {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// hold makes the workspace's daemons hold requests, or not.
func (e *env) hold(on bool) {
	e.t.Helper()
	p := filepath.Join(e.workspace, "hold")
	if on {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	os.Remove(p)
}

// testClient is a dialled client in the test process, shut down like
// Runtime.Shutdown does. One at a time per test process.
type testClient struct {
	*Client
	reaper *lifecycle.Reaper
	closed atomic.Bool
}

func (e *env) dial(opts ...Option) *testClient {
	e.t.Helper()
	cfg := DialConfig{Workspace: e.workspace, Version: testVersion, Start: e.start, Reaper: &lifecycle.Reaper{}}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		e.t.Fatalf("Dial: %v", err)
	}
	cl := &testClient{Client: c, reaper: cfg.Reaper}
	e.t.Cleanup(cl.close)
	return cl
}

func (c *testClient) close() {
	if !c.closed.CompareAndSwap(false, true) {
		return
	}
	_ = c.System.Root.StopFuture(c.Router).Wait()
	_ = c.System.Root.StopFuture(c.Diagnostics).Wait()
	c.reaper.Wait(context.Background())
	c.System.Shutdown()
}

// ask sends msg to pid and waits for the reply.
func (c *testClient) ask(t *testing.T, pid *actor.PID, msg any) any {
	t.Helper()
	res, err := c.System.Root.RequestFuture(pid, msg, 20*time.Second).Result()
	if err != nil {
		t.Fatalf("ask %T: %v", msg, err)
	}
	return res
}
