//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMCPStopsOnSignal: SIGHUP (a terminal closed, an agent host ending
// its child) stops `agentlsp mcp` as SIGTERM and SIGINT do: it shuts its
// servers down and exits 0, so that a server's own children (in its
// process group) and its temporary directory go with it. Before, SIGHUP
// killed the command outright: the grandchild outlived it and the
// directory stayed.
func TestMCPStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { stopOnSignal(t, sig) })
	}
}

func stopOnSignal(t *testing.T, sig syscall.Signal) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "hello\n")
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	cfg := fakeConfig(t, ws, "--grandchild", "--grandchild-pidfile", pidfile, "--temp-file", "left.txt")
	tmp := t.TempDir() // the command's TMPDIR, where its servers get theirs
	cmd, stdin, lines := startCommand(t, []string{"TMPDIR=" + tmp}, "mcp", "--workspace", ws, "--config", cfg)

	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lsp","arguments":{"operation":"hover","filePath":"a.fk","line":1,"character":1}}}`,
	} {
		fmt.Fprintln(stdin, l)
	}
	awaitID(t, lines, 2) // the server is up: it answered
	grandchild := readPID(t, pidfile)
	if left, _ := os.ReadDir(tmp); len(left) == 0 {
		t.Fatalf("%s holds nothing while the server runs, want its temporary directory", tmp)
	}

	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for range lines { // until the command closes its stdout
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after %v: %v, want exit status 0", sig, err)
	}
	testenv.Eventually(t, 10*time.Second, "the server's grandchild ended", func() bool {
		return !slices.Contains(testenv.Processes(), grandchild)
	})
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("after %v, %s holds %v (%v), want nothing", sig, tmp, left, err)
	}
}

// startCommand runs the agentlsp command (this test binary, see TestMain)
// with args and env over pipes: the command's stdin, and its stdout's lines
// (closed at EOF). The test ends the command if it is still running.
func startCommand(t *testing.T, env []string, args ...string) (*exec.Cmd, io.WriteCloser, <-chan string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), mainEnv+"=1"), env...)
	var stderr lockedWriter
	stderr.w = new(strings.Builder)
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 256)
	// The reader lives until the command closes its stdout.
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			for range lines {
			}
			cmd.Wait()
		}
		if t.Failed() {
			stderr.mu.Lock()
			defer stderr.mu.Unlock()
			t.Logf("the command's stderr:\n%s", stderr.w)
		}
	})
	return cmd, stdin, lines
}

// awaitID reads lines until the JSON-RPC response with id.
func awaitID(t *testing.T, lines <-chan string, id int) {
	t.Helper()
	for line := range lines {
		var msg struct{ ID *int }
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID != nil && *msg.ID == id {
			return
		}
	}
	t.Fatalf("stdout ended before the response %d", id)
}

// readPID reads the pid the fake wrote; a test that fails later still
// kills that process, which outlives a command killed outright.
func readPID(t *testing.T, file string) int {
	t.Helper()
	var pid int
	testenv.Eventually(t, 20*time.Second, "the fake wrote its grandchild's pid", func() bool {
		b, err := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	t.Cleanup(func() {
		if slices.Contains(testenv.Processes(), pid) { // still ours, not a reused pid
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pid
}
