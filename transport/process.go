package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/lookpath"
	"github.com/agentlsp/agentlsp/messages"
)

// process is one spawned server process, in its own process group where the
// platform has them (see sysProcAttr, start and killGroup in the
// process_*.go files).
//
// Goroutines: the stderr reader (ends when every holder of the stderr pipe
// exits, which killGroup ensures) and the waiter (ends when the process
// exits; on Linux it also started the process, see process_linux.go). Both
// are joined by wait.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	stderr *ring

	exited   chan struct{} // closed when the process has been reaped
	exitErr  error         // valid after exited is closed
	readerWG sync.WaitGroup

	// tmp is the process's own temporary directory (its TMPDIR), removed
	// once the process has been reaped; nil when it has none.
	tmp *tempDir
}

// spawn starts command in its own process group with env added to the
// runtime's environment and dir as working directory, and a temporary
// directory of its own (privateTemp). The command is never run through a
// shell. A failure to start is a *messages.SpawnError.
func spawn(command string, args, env []string, dir string, stderrLines int) (*process, error) {
	path, err := lookpath.Look(command)
	if err != nil {
		return nil, &messages.SpawnError{Command: command, Err: err}
	}
	env, tmp := privateTemp(path, env)
	cmd := exec.Command(path, args...)
	cmd.Env = mergeEnv(os.Environ(), env)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()

	pipes, err := newPipes()
	if err != nil {
		tmp.remove()
		return nil, fmt.Errorf("transport: pipes for %s: %w", command, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes.childIn, pipes.childOut, pipes.childErr
	p := &process{
		cmd:    cmd,
		stdin:  pipes.in,
		stdout: pipes.out,
		stderr: newRing(stderrLines),
		exited: make(chan struct{}),
		tmp:    tmp,
	}
	if err := p.start(); err != nil {
		pipes.closeAll()
		tmp.remove()
		return nil, &messages.SpawnError{Command: command, Err: err}
	}
	pipes.closeChild()
	p.readerWG.Add(1)
	// The stderr reader lives until the stderr pipe reports EOF: when the
	// process group is gone. Joined by wait.
	go func() {
		defer p.readerWG.Done()
		defer pipes.errR.Close()
		p.stderr.readFrom(pipes.errR)
	}()
	return p, nil
}

// reap is the waiter's work once the process runs: it waits for the
// process, kills what is left of its group (grandchildren holding our
// pipes), removes its temporary directory and closes exited.
func (p *process) reap() {
	p.exitErr = p.cmd.Wait()
	p.killGroup()
	if p.tmp != nil {
		p.tmp.remove()
		sweepOnce.Do(func() { sweepTemp(filepath.Dir(p.tmp.path), time.Now()) })
	}
	close(p.exited)
}

// privateTemp gives a server process a temporary directory of its own,
// agentlsp-PID-COMMAND-* in the inherited one (PID is agentlsp's), by
// adding TMPDIR to env, unless env sets TMPDIR itself. Servers leave files
// and directories in the temporary directory when they are killed, and
// some even when they exit cleanly (tsserver two directories per run,
// rust-analyzer its proc-macro server's, gopls its temporary go.mod
// copies): the directory is removed with everything in it once the
// process is reaped, so a workspace whose servers restart for days does
// not fill /tmp. If it cannot be made the server gets the inherited
// environment's. It returns env and the directory (nil for none).
func privateTemp(path string, env []string) ([]string, *tempDir) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMPDIR=") {
			return env, nil
		}
	}
	dir, err := os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-"+tempName(filepath.Base(path))+"-")
	if err != nil {
		return env, nil
	}
	return append(slices.Clip(env), "TMPDIR="+dir), &tempDir{path: dir, lock: lockDir(dir, false)}
}

// tempDir is a server process's temporary directory. While it is in use
// agentlsp holds a shared lock on it (flock, where the platform has it),
// which a sweep by another agentlsp process sees.
type tempDir struct {
	path string
	lock *os.File // nil: not locked
}

// remove removes the directory with everything in it, then its lock. A
// file that a process outside the killed group still writes can survive
// it. Safe on nil.
func (t *tempDir) remove() {
	if t == nil {
		return
	}
	_ = os.RemoveAll(t.path)
	if t.lock != nil {
		t.lock.Close()
	}
}

// tempPrefix begins the name of every server's temporary directory.
const tempPrefix = "agentlsp-"

// sweepOnce makes the first reaped process's waiter sweep the
// temporary directories of agentlsp processes that are gone.
var sweepOnce sync.Once

// sweepAge is how long a server's temporary directory must have been left
// unchanged before a sweep may remove it: one just made is not locked yet.
const sweepAge = time.Minute

// sweepTemp removes from dir the servers' temporary directories that
// agentlsp processes left when they were killed: an agentlsp killed with
// SIGKILL takes its servers along (Pdeathsig) but cannot remove their
// directories. A directory is kept while someone holds its lock (a live
// agentlsp, in this pid namespace or another), or if it changed in the
// last sweepAge; one of another user cannot be removed and is left.
func sweepTemp(dir string, now time.Time) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		if !isServerTemp(name) {
			continue
		}
		path := filepath.Join(dir, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || now.Sub(fi.ModTime()) < sweepAge {
			continue
		}
		lock := lockDir(path, true)
		if lock == nil {
			continue // in use, or not ours to lock
		}
		_ = os.RemoveAll(path)
		lock.Close()
	}
}

// isServerTemp says whether name is that of a server's temporary
// directory, agentlsp-PID-COMMAND-RANDOM (privateTemp, os.MkdirTemp): a
// directory a person named agentlsp-something is not one.
func isServerTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return false
	}
	pid, rest, ok := strings.Cut(rest, "-")
	i := strings.LastIndexByte(rest, '-')
	return ok && i >= 0 && allDigits(pid) && allDigits(rest[i+1:])
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// tempName keeps the letters, digits, '-' and '_' of a command's name, at
// most 32 of them.
func tempName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, name)
	return name[:min(len(name), 32)]
}

// pid returns the OS process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// wait blocks until the process has exited and its stderr is drained.
func (p *process) wait() {
	<-p.exited
	p.readerWG.Wait()
}

// pipes are the three stdio pipes of a child, both ends.
type pipes struct {
	in, childIn    *os.File
	out, childOut  *os.File
	errR, childErr *os.File
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	var err error
	if p.childIn, p.in, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.out, p.childOut, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.errR, p.childErr, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	return p, nil
}

func (p *pipes) closeChild() {
	for _, f := range []*os.File{p.childIn, p.childOut, p.childErr} {
		if f != nil {
			f.Close()
		}
	}
}

func (p *pipes) closeAll() {
	p.closeChild()
	for _, f := range []*os.File{p.in, p.out, p.errR} {
		if f != nil {
			f.Close()
		}
	}
}

// mergeEnv returns base with the KEY=VALUE entries of extra added, extra
// winning over base for the same key.
func mergeEnv(base, extra []string) []string {
	if len(extra) == 0 {
		return base
	}
	override := make(map[string]bool, len(extra))
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		override[k] = true
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !override[k] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// ring keeps the last n lines written to a server's stderr. Safe for
// concurrent use.
type ring struct {
	mu    sync.Mutex
	lines []string
	next  int
	full  bool
}

func newRing(n int) *ring {
	if n <= 0 {
		n = 1
	}
	return &ring{lines: make([]string, n)}
}

// maxStderrLine bounds one kept line.
const maxStderrLine = 1024

func (r *ring) readFrom(rd io.Reader) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		r.add(sc.Text())
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		// An over-long line: keep draining so the server never blocks on stderr.
		r.add("[agentlsp: stderr line too long, skipped]")
		_, _ = io.Copy(io.Discard, rd)
	}
}

func (r *ring) add(line string) {
	if len(line) > maxStderrLine {
		line = line[:maxStderrLine] + "..."
	}
	r.mu.Lock()
	r.lines[r.next] = line
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

// tail returns the kept lines, oldest first.
func (r *ring) tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.lines[:r.next]...)
	}
	out := append([]string(nil), r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// pipeRWC joins the server's stdout (read) and stdin (write) into one
// io.ReadWriteCloser.
type pipeRWC struct {
	r *os.File
	w *os.File
}

func (p *pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeRWC) Close() error {
	errW := p.w.Close()
	errR := p.r.Close()
	return errors.Join(errW, errR)
}
