package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/agentlsp/agentlsp/transport"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// fake starts the fake server with flags and a record file; the
// connection is killed and joined at the end of the test.
func fake(t *testing.T, opts transport.Options, flags ...string) (*transport.Conn, string) {
	t.Helper()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, args, env := testenv.FakeServer(t, append([]string{"--record", record}, flags...)...)
	opts.Command, opts.Args = cmd, args
	for k, v := range env {
		opts.Env = append(opts.Env, k+"="+v)
	}
	c, err := transport.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		c.Kill()
		<-c.Done()
	})
	return c, record
}

func initialize(t *testing.T, c *transport.Conn) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify("initialized", struct{}{}); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return res
}

func waitDone(t *testing.T, c *transport.Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("connection did not end")
	}
}

func TestHandshakeAndShutdown(t *testing.T) {
	c, record := fake(t, transport.Options{}, "--sync", "full")
	res := initialize(t, c)
	var r struct {
		Capabilities struct {
			TextDocumentSync struct{ Change int } `json:"textDocumentSync"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.Capabilities.TextDocumentSync.Change != 1 {
		t.Errorf("textDocumentSync.change = %d, want 1", r.Capabilities.TextDocumentSync.Change)
	}
	pid := c.PID()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown = %v, want nil", err)
	}
	if pid <= 0 || processAlive(pid) {
		t.Errorf("process %d alive after Shutdown", pid)
	}
	recs := testenv.Records(t, record)
	want := []string{"initialize", "initialized", "shutdown", "exit"}
	if diff := cmp.Diff(want, testenv.Methods(recs)); diff != "" {
		t.Errorf("methods received (-want +got):\n%s", diff)
	}
	// Requests without parameters carry no params member at all.
	for _, r := range recs[2:] {
		if len(r.Params) != 0 && string(r.Params) != "null" {
			t.Errorf("%s params = %s, want none", r.Method, r.Params)
		}
	}
}

func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

func TestServerRequestsAnswered(t *testing.T) {
	settings := map[string]any{"fake": map[string]any{"a": 1.0, "nested": map[string]any{"b": true}}}
	c, record := fake(t, transport.Options{
		Settings:         settings,
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: "file:///w", Name: "w"}},
	},
		"--config-first",
		"--server-request", `workspace/workspaceFolders=null`,
		"--server-request", `workspace/applyEdit={"edit":{}}`,
		"--server-request", `window/showMessageRequest={"type":1,"message":"hi"}`,
		"--server-request", `custom/unknown={}`,
	)
	initialize(t, c)
	var recs []testenv.Record
	testenv.Eventually(t, 10*time.Second, "5 responses recorded", func() bool {
		recs = responses(testenv.Records(t, record))
		return len(recs) == 5
	})
	wantConfig := `[{"a":1,"nested":{"b":true}},{"b":true},{}]`
	if got := compact(t, recs[0].Result); got != wantConfig {
		t.Errorf("workspace/configuration result = %s, want %s", got, wantConfig)
	}
	checks := []struct{ result, errSub string }{
		{result: `[{"name":"w","uri":"file:///w"}]`},
		{result: `{"applied":false,"failureReason":"agentlsp does not apply edits from language servers"}`},
		{result: `null`},
		{errSub: `"code":-32601`},
	}
	for i, ch := range checks {
		r := recs[i+1]
		if ch.errSub != "" {
			if !strings.Contains(string(r.Error), ch.errSub) {
				t.Errorf("response %d error = %s, want %s", i+1, r.Error, ch.errSub)
			}
			continue
		}
		if got := compact(t, r.Result); got != ch.result {
			t.Errorf("response %d result = %s, want %s", i+1, got, ch.result)
		}
	}
	// ids 0 and "s-1" came back as sent.
	if string(recs[1].ID) != "0" || string(recs[2].ID) != `"s-1"` {
		t.Errorf("response ids = %s, %s; want 0, \"s-1\"", recs[1].ID, recs[2].ID)
	}
}

func responses(rs []testenv.Record) []testenv.Record {
	var out []testenv.Record
	for _, r := range rs {
		if r.Kind == "response" {
			out = append(out, r)
		}
	}
	return out
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("bad JSON %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestEventsReachCallback(t *testing.T) {
	events := make(chan string, 16)
	c, _ := fake(t, transport.Options{OnEvent: func(method string, _ json.RawMessage) { events <- method }},
		"--pull-register", "--progress", "1ms")
	initialize(t, c)
	want := map[string]bool{"client/registerCapability": true, "window/workDoneProgress/create": true, "$/progress": true}
	deadline := time.After(10 * time.Second)
	for len(want) > 0 {
		select {
		case m := <-events:
			delete(want, m)
		case <-deadline:
			t.Fatalf("events not seen: %v", want)
		}
	}
}

func TestCrashEndsConnectionWithStderr(t *testing.T) {
	c, _ := fake(t, transport.Options{}, "--crash-after", "2", "--stderr", "first line")
	initialize(t, c)
	_, err := c.Call(context.Background(), "textDocument/hover", map[string]any{})
	if !errors.Is(err, transport.ErrExited) {
		t.Errorf("call during crash = %v, want ErrExited", err)
	}
	waitDone(t, c)
	if !errors.Is(c.Err(), transport.ErrExited) || !strings.Contains(c.Err().Error(), "exit status 2") {
		t.Errorf("Err() = %v, want ErrExited with exit status 2", c.Err())
	}
	tail := strings.Join(c.StderrTail(), "\n")
	for _, want := range []string{"first line", "crashing after 2 messages"} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr tail %q lacks %q", tail, want)
		}
	}
}

func TestGarbageFrameIsProtocolError(t *testing.T) {
	c, _ := fake(t, transport.Options{}, "--garbage-on", "textDocument/hover")
	initialize(t, c)
	_, err := c.Call(context.Background(), "textDocument/hover", map[string]any{})
	if err == nil {
		t.Fatal("hover answered despite garbage")
	}
	waitDone(t, c)
	if !errors.Is(c.Err(), transport.ErrProtocol) {
		t.Errorf("Err() = %v, want ErrProtocol", c.Err())
	}
}

func TestOversizedFrameRefused(t *testing.T) {
	c, _ := fake(t, transport.Options{MaxMessageSize: 4096}, "--oversize-on", "textDocument/hover=100000")
	initialize(t, c)
	if _, err := c.Call(context.Background(), "textDocument/hover", map[string]any{}); err == nil {
		t.Fatal("oversized answer accepted")
	}
	waitDone(t, c)
	if !errors.Is(c.Err(), transport.ErrMessageTooLarge) {
		t.Errorf("Err() = %v, want ErrMessageTooLarge", c.Err())
	}
}

func TestTimeoutAndCancelSendCancelRequest(t *testing.T) {
	c, record := fake(t, transport.Options{}, "--hang-on", "textDocument/hover", "--delay", "textDocument/definition=1h")
	initialize(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Call(ctx, "textDocument/hover", map[string]any{}); !errors.Is(err, messages.ErrRequestTimeout) {
		t.Errorf("hung call = %v, want ErrRequestTimeout", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c.Go(ctx2, "textDocument/definition", map[string]any{}, func(_ json.RawMessage, err error) { done <- err })
	testenv.Eventually(t, 10*time.Second, "definition reached the fake", func() bool {
		return contains(testenv.Methods(testenv.Records(t, record)), "textDocument/definition")
	})
	cancel2()
	if err := <-done; !errors.Is(err, messages.ErrCanceled) {
		t.Errorf("cancelled call = %v, want ErrCanceled", err)
	}
	testenv.Eventually(t, 10*time.Second, "two $/cancelRequest recorded", func() bool {
		n := 0
		for _, m := range testenv.Methods(testenv.Records(t, record)) {
			if m == "$/cancelRequest" {
				n++
			}
		}
		return n == 2
	})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestShutdownIgnoredIsKilled(t *testing.T) {
	c, _ := fake(t, transport.Options{}, "--ignore-shutdown", "--grandchild")
	initialize(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_ = c.Shutdown(ctx)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	testenv.NoProcesses(t) // the grandchild died with the process group
}

func TestStoppedReaderTimesOutWrites(t *testing.T) {
	c, _ := fake(t, transport.Options{WriteTimeout: 200 * time.Millisecond}, "--stop-reading-after", "2")
	initialize(t, c)
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 4; i++ {
		_ = c.Notify("custom/big", map[string]string{"text": big})
	}
	waitDone(t, c)
	if !errors.Is(c.Err(), transport.ErrWriteFailed) {
		t.Errorf("Err() = %v, want ErrWriteFailed", c.Err())
	}
}

func TestMissingBinaryIsSpawnError(t *testing.T) {
	_, err := transport.Start(context.Background(), transport.Options{Command: "agentlsp-no-such-server"})
	var se *messages.SpawnError
	if !errors.As(err, &se) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("Start = %v, want *messages.SpawnError wrapping exec.ErrNotFound", err)
	}
	if se.Command != "agentlsp-no-such-server" {
		t.Errorf("SpawnError.Command = %q", se.Command)
	}
}

func TestSocketTransports(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ network, address string }{
		{"unix", filepath.Join(dir, "lsp.sock")},
		{"tcp", freeTCPAddress(t)},
	} {
		t.Run(tc.network, func(t *testing.T) {
			c, _ := fake(t, transport.Options{Network: tc.network, Address: tc.address},
				"--listen", tc.network+":"+tc.address)
			initialize(t, c)
			res, err := c.Call(context.Background(), "textDocument/hover", map[string]any{})
			if err != nil || !strings.Contains(string(res), "fake hover") {
				t.Errorf("hover over %s = %s, %v", tc.network, res, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.Shutdown(ctx); err != nil {
				t.Errorf("Shutdown = %v", err)
			}
		})
	}
}

func freeTCPAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestPanickingEventCallbackDoesNotKillConnection(t *testing.T) {
	c, _ := fake(t, transport.Options{OnEvent: func(method string, _ json.RawMessage) {
		panic("callback bug on " + method)
	}}, "--progress", "1ms")
	initialize(t, c)
	// The fake sends window/workDoneProgress/create (a request) and
	// $/progress notifications; the panics are recovered and answered.
	for i := 0; i < 3; i++ {
		res, err := c.Call(context.Background(), "textDocument/hover", map[string]any{})
		if err != nil || !strings.Contains(string(res), "fake hover") {
			t.Fatalf("hover %d after callback panics = %s, %v", i, res, err)
		}
	}
}

// tempFileOf is the path the fake logged for --temp-file, once the
// connection's stderr reader has read it (it reads apart from stdout).
func tempFileOf(t *testing.T, c *transport.Conn) string {
	t.Helper()
	var path string
	testenv.Eventually(t, 20*time.Second, "the fake's temp file line in its stderr", func() bool {
		for _, line := range c.StderrTail() {
			if _, p, ok := strings.Cut(line, "fakelsp: temp file "); ok {
				path = p
				return true
			}
		}
		return false
	})
	return path
}

// A server's files in its temporary directory go with it, whether it is
// killed or shuts down, and a TMPDIR the configuration sets is left alone.
func TestServerTempDirGoesWithTheServer(t *testing.T) {
	for _, end := range []string{"kill", "shutdown"} {
		t.Run(end, func(t *testing.T) {
			parent := t.TempDir()
			t.Setenv("TMPDIR", parent)
			c, _ := fake(t, transport.Options{}, "--temp-file", "left.txt")
			initialize(t, c)
			path := tempFileOf(t, c)
			dir := filepath.Dir(path)
			if filepath.Dir(dir) != parent || !strings.HasPrefix(filepath.Base(dir), "agentlsp-") {
				t.Errorf("temp file %s: want it in a directory agentlsp-* of its own in %s", path, parent)
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("temp file: %v", err)
			}
			if end == "kill" {
				c.Kill()
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if err := c.Shutdown(ctx); err != nil {
					t.Errorf("Shutdown = %v", err)
				}
			}
			waitDone(t, c)
			left, err := os.ReadDir(parent)
			if err != nil || len(left) != 0 {
				t.Errorf("after the server's end, %s holds %v (%v), want nothing", parent, left, err)
			}
		})
	}
	t.Run("configured", func(t *testing.T) {
		mine := t.TempDir()
		c, _ := fake(t, transport.Options{Env: []string{"TMPDIR=" + mine}}, "--temp-file", "kept.txt")
		initialize(t, c)
		if path, want := tempFileOf(t, c), filepath.Join(mine, "kept.txt"); path != want {
			t.Errorf("temp file %s, want %s (the configured TMPDIR)", path, want)
		}
		c.Kill()
		waitDone(t, c)
		if _, err := os.Stat(filepath.Join(mine, "kept.txt")); err != nil {
			t.Errorf("the configured TMPDIR lost the server's file: %v", err)
		}
	})
}

// TestStrayStdoutIsKeptWithStderr: a server that writes text, not frames,
// on stdout and exits (TypeScript 5's tsc, started as tsgo with --lsp,
// prints "error TS5023: Unknown compiler option '--lsp'." there) has
// those lines in its stderr tail, marked as stdout, next to its exit
// status. Before, they were read as unknown header lines and dropped: the
// only reason given was "exit status 1".
func TestStrayStdoutIsKeptWithStderr(t *testing.T) {
	script := `echo "error TS5023: Unknown compiler option '--lsp'."; echo "on stderr" >&2; exit 1`
	c, err := transport.Start(context.Background(), transport.Options{Command: "sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	waitDone(t, c)
	if !errors.Is(c.Err(), transport.ErrExited) || !strings.Contains(c.Err().Error(), "exit status 1") {
		t.Errorf("Err() = %v, want ErrExited with exit status 1", c.Err())
	}
	tail := c.StderrTail()
	for _, want := range []string{"stdout: error TS5023: Unknown compiler option '--lsp'.", "on stderr"} {
		if !slices.Contains(tail, want) {
			t.Errorf("StderrTail() = %q, want a line %q", tail, want)
		}
	}
}
