//go:build linux

package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/agentlsp/agentlsp/transport"
)

// orphanHelperEnv marks the test binary re-executed as the helper of
// TestNoOrphanAfterSIGKILL.
const orphanHelperEnv = "AGENTLSP_TRANSPORT_ORPHAN_HELPER"

// pidPrefix starts the line on which the helper reports the server's pid.
const pidPrefix = "server-pid "

// TestNoOrphanAfterSIGKILL: a process that started a server which does not
// read its stdin (so never sees it close) is killed with SIGKILL; the
// server must be gone within a second. The helper process is this test
// binary running TestOrphanHelper.
func TestNoOrphanAfterSIGKILL(t *testing.T) {
	helper, pid, lines := startOrphanHelper(t)
	killed := time.Now()
	if err := helper.Process.Kill(); err != nil {
		t.Fatalf("kill helper: %v", err)
	}
	<-lines // the helper's stdout is closed: it is gone
	_ = helper.Wait()
	gone := waitGone(pid, 5*time.Second)
	if gone.IsZero() {
		t.Fatalf("server %d still alive 5s after its parent was killed with SIGKILL", pid)
	}
	after := gone.Sub(killed)
	t.Logf("server %d gone %v after SIGKILL of its parent", pid, after.Round(time.Microsecond))
	if after > time.Second {
		t.Errorf("server %d gone %v after SIGKILL of its parent, want within 1s", pid, after)
	}
}

// startOrphanHelper starts the helper and returns it, the pid of the
// server it started, and a channel closed when the helper's stdout closes.
// Cleanup kills the helper and, should it have outlived it, the server.
func startOrphanHelper(t *testing.T) (*exec.Cmd, int, <-chan struct{}) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestOrphanHelper$", "-test.count=1")
	// The helper is killed with SIGKILL: its server's temporary directory
	// is left for a sweep, so it is made in the test's own.
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1", "TMPDIR="+t.TempDir())
	stderr, err := os.Create(filepath.Join(t.TempDir(), "helper.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 1)
	closed := make(chan struct{})
	// The reader lives until the helper's stdout closes: when it is killed.
	go func() {
		defer close(closed)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), pidPrefix); ok {
				pid, _ := strconv.Atoi(n)
				pids <- pid
			}
		}
	}()
	var pid int
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-closed
		_ = cmd.Wait()
		if pid > 0 && alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	select {
	case pid = <-pids:
	case <-closed:
		t.Fatalf("the helper ended without reporting the server's pid; its stderr:\n%s", readFile(stderr.Name()))
	case <-time.After(time.Minute):
		t.Fatalf("the helper reported no server pid within a minute; its stderr:\n%s", readFile(stderr.Name()))
	}
	if !alive(pid) {
		t.Fatalf("server %d is not running before the helper is killed", pid)
	}
	return cmd, pid, closed
}

// TestOrphanHelper is not a test: run by TestNoOrphanAfterSIGKILL in a
// process of its own, it starts the fake server, has it stop reading its
// stdin, prints its pid and waits to be killed.
func TestOrphanHelper(t *testing.T) {
	if os.Getenv(orphanHelperEnv) != "1" {
		t.Skip("helper process of TestNoOrphanAfterSIGKILL")
	}
	c, err := transport.Start(context.Background(), fakeOptions(t, "--stop-reading-after", "1"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer func() { c.Kill(); <-c.Done() }()
	if err := c.Notify("initialized", struct{}{}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the fake server stops reading", func() bool {
		return strings.Contains(strings.Join(c.StderrTail(), "\n"), "stopped reading")
	})
	fmt.Printf("%s%d\n", pidPrefix, c.PID())
	select {
	case <-c.Done():
		t.Fatalf("the connection ended: %v", c.Err())
	case <-time.After(2 * time.Minute): // the parent test kills us long before
		t.Fatal("the helper was not killed")
	}
}

// waitGone polls until pid is no longer a live process and returns when it
// saw it gone, or the zero time if it still lives after d.
func waitGone(pid int, d time.Duration) time.Time {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return time.Now()
		}
		time.Sleep(time.Millisecond)
	}
	return time.Time{}
}

// alive reports whether pid is a process that has not exited (a zombie
// has exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// readFile returns the text of a file, or why it could not be read.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestServerOutlivesTheThreadThatStartedIt: the parent death signal fires
// when the OS thread that started the server exits, and threads come and
// go in a Go process (a goroutine that ends while locked to its thread
// takes the thread with it). A server started from such a goroutine must
// live on after its thread is gone.
func TestServerOutlivesTheThreadThatStartedIt(t *testing.T) {
	var (
		c   *transport.Conn
		err error
	)
	opts := fakeOptions(t)
	tid := onDoomedThread(t, func() { c, err = transport.Start(context.Background(), opts) })
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Kill(); <-c.Done() })
	testenv.Eventually(t, 10*time.Second, "the thread that started the server exits", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
		return os.IsNotExist(err)
	})
	initialize(t, c)
	if !alive(c.PID()) {
		t.Fatalf("server %d died with the thread that started it: %v", c.PID(), c.Err())
	}
}

// onDoomedThread runs f on a goroutine locked to a thread other than the
// main one, and returns that thread's id once f has returned. The
// goroutine ends locked, so the thread exits soon after. (The main thread
// never exits: a goroutine that lands there tries again on a new one.)
func onDoomedThread(t *testing.T, f func()) (tid int) {
	// Hold our own thread meanwhile: should it be the main one, the
	// goroutines below cannot run there.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range 100 {
		tids := make(chan int, 1)
		// Ends once f returns (or at once on the main thread).
		go func() {
			runtime.LockOSThread() // never unlocked, but on the main thread
			tid := syscall.Gettid()
			if tid == os.Getpid() {
				runtime.UnlockOSThread()
				tids <- 0
				return
			}
			f()
			tids <- tid
		}()
		if tid := <-tids; tid != 0 {
			return tid
		}
	}
	t.Fatal("no goroutine landed on a thread other than the main one")
	return 0
}

// fakeOptions are the options that start the fake server with flags.
func fakeOptions(t *testing.T, flags ...string) transport.Options {
	t.Helper()
	command, args, env := testenv.FakeServer(t, flags...)
	opts := transport.Options{Command: command, Args: args}
	for k, v := range env {
		opts.Env = append(opts.Env, k+"="+v)
	}
	return opts
}
