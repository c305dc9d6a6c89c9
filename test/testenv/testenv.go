// Package testenv is shared test support: the test binary re-executed as
// the fake language server, leak checks (goroutines, actors, child
// processes), and waiting for conditions. Only tests import it.
package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/goleak"

	"github.com/agentlsp/agentlsp/test/fakelsp"
)

const (
	fakeEnv  = "AGENTLSP_TESTENV_FAKELSP"
	ownerEnv = "AGENTLSP_TESTENV_OWNER"
)

// Main is the TestMain of every test package. Re-executed with the fake
// marker in its environment, the test binary is the fake language server;
// otherwise it runs the tests and then checks that no goroutine leaked and
// no child process (or grandchild) outlived them.
func Main(m *testing.M) { MainWith(m, nil) }

// MainWith is Main with setup run before the tests (not in the fake
// server's processes, which run the test binary too), and the cleanup it
// returns run after them.
func MainWith(m *testing.M, setup func() (cleanup func())) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakelsp.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// Every process the tests start inherits this marker, so leftovers can
	// be found even after they were re-parented.
	os.Setenv(ownerEnv, strconv.Itoa(os.Getpid()))
	// Every process the tests start gets a temporary directory inside one
	// of the package's own, removed after the tests: a server killed with
	// its agentlsp (SIGKILL) leaves its temporary directory for a sweep.
	tmp, err := os.MkdirTemp("", "agentlsp-test-")
	if err == nil {
		os.Setenv("TMPDIR", tmp)
	}
	cleanup := func() {}
	if setup != nil {
		cleanup = setup()
	}
	code := m.Run()
	cleanup()
	if code == 0 {
		if left := waitNoProcesses(10 * time.Second); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "testenv: child processes outlived the tests: %v\n", left)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(IgnoreOpts()...); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: goroutine leak: %v\n", err)
			code = 1
		}
	}
	if tmp != "" {
		os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// IgnoreOpts are the goleak options for goroutines that are not ours.
func IgnoreOpts() []goleak.Option {
	// protoactor's dead-letter throttle goroutine ends after the short
	// interval actors.NewSystem sets; goleak.Find retries long enough.
	return nil
}

// FakeServer returns the command, args and env entries that start the fake
// language server with the given flags.
func FakeServer(t testing.TB, flags ...string) (command string, args []string, env map[string]string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	return exe, append([]string(nil), flags...), map[string]string{fakeEnv: "1"}
}

// Processes returns the pids of live processes started by this test binary
// (directly or not), found by the owner marker in their environment.
func Processes() []int {
	me := os.Getpid()
	marker := []byte(ownerEnv + "=" + strconv.Itoa(me) + "\x00")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == me {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		if zombie(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

func waitNoProcesses(d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Processes()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NoProcesses fails t if a process started by the test binary is still
// alive after a grace period.
func NoProcesses(t testing.TB) {
	t.Helper()
	if left := waitNoProcesses(10 * time.Second); len(left) > 0 {
		t.Errorf("child processes still alive: %v", left)
	}
}

// Eventually polls cond until it holds or timeout passes, then fails t
// with msg. It waits for a condition; it does not sleep for a result.
func Eventually(t testing.TB, timeout time.Duration, msg string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v: %s", timeout, msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Actors counts the processes in an actor system's registry (actors,
// futures, system processes).
func Actors(sys *actor.ActorSystem) int {
	n := 0
	for _, b := range sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		n += b.Count()
	}
	return n
}

// Record is one message the fake server received, as it logged it.
type Record struct {
	Kind   string          `json:"kind"`
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Records reads the fake server's record file; a missing file is empty.
// Only whole lines count: a reader racing the fake's write of a line can
// see the start of it (a write to a regular file is not atomic for a
// concurrent read), and a line is whole once its newline is there.
func Records(t testing.TB, path string) []Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("read record: %v", err)
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var out []Record
	for line := range bytes.Lines(data) {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// Methods returns the methods of the records, in order.
func Methods(rs []Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Method
	}
	return out
}

// ServerBinary returns the path of a real language server installed by the
// test command (scripts/test.sh) in the server cache, or found in PATH. A
// missing server fails the test: it is a missing dependency, not a reason
// to skip.
func ServerBinary(t testing.TB, name string) string {
	t.Helper()
	for _, dir := range ServerDirs() {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Fatalf("language server %q is not installed: run scripts/test.sh (it installs the servers the tests need into %s)", name, CacheDir())
	return ""
}

// CacheDir is where scripts/install-servers.sh installs servers:
// $AGENTLSP_CACHE, or ~/.cache/agentlsp.
func CacheDir() string {
	if d := os.Getenv("AGENTLSP_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentlsp")
}

// ServerDirs are the directories searched for server binaries.
func ServerDirs() []string {
	c := CacheDir()
	return []string{filepath.Join(c, "bin"), filepath.Join(c, "npm", "node_modules", ".bin")}
}

// CopyDir copies the testdata directory src into a new temporary directory
// and returns its path (resolved through symlinks, as servers report it).
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	CopyInto(t, src, dst)
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// CopyInto copies the directory src into dst (created if needed).
func CopyInto(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}
