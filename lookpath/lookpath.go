// Package lookpath finds a language server's command on PATH as
// exec.LookPath does, past the proxies rustup puts there for components a
// toolchain may not have.
//
// rustup installs ~/.cargo/bin/rust-analyzer (and cargo, rls, ...) as links
// to itself, first on PATH, whether or not the toolchain has the
// component; without it, the proxy exits at once with "Unknown binary
// 'rust-analyzer' in official toolchain". Taken as the server, it was
// started, exited, and was restarted until its crash budget ran out, while
// `agentlsp servers` listed it as installed and a rust-analyzer from the
// system's packages later on PATH was never tried. Look skips such a proxy
// (asking `rustup which`), and says what to do when nothing else is found.
package lookpath

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ProxyError says the command found is rustup's proxy for a component the
// toolchain does not have. It matches exec.ErrNotFound (errors.Is): the
// command is not installed.
type ProxyError struct {
	Command string // as asked for: rust-analyzer
	Path    string // the proxy
	Rustup  string // what `rustup which` said
}

func (e *ProxyError) Error() string {
	msg := fmt.Sprintf("%s is rustup's proxy, and the toolchain has no %s", e.Path, e.Command)
	if e.Rustup != "" {
		msg += " (rustup: " + e.Rustup + ")"
	}
	return msg + ": rustup component add " + e.Command
}

// Unwrap makes a ProxyError an exec.ErrNotFound.
func (e *ProxyError) Unwrap() error { return exec.ErrNotFound }

// Look returns the path of cmd: cmd itself when it names a path, else the
// first executable of that name in PATH's directories that is not a
// rustup proxy without its component. When none is found, the error is
// the first such proxy's *ProxyError, or exec.LookPath's.
func Look(cmd string) (string, error) {
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", err
	}
	first := checkProxy(cmd, p)
	switch {
	case first == nil:
		return p, nil
	case strings.ContainsRune(cmd, filepath.Separator):
		return "", first // a path names one file: nothing else to try
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // as exec.LookPath refuses a relative result
		}
		q, err := exec.LookPath(filepath.Join(dir, cmd))
		if err != nil || q == p {
			continue
		}
		if checkProxy(cmd, q) == nil {
			return q, nil
		}
	}
	return "", first
}

// checkProxy returns a *ProxyError when p (found for cmd) is rustup's
// proxy and `rustup which cmd` fails.
func checkProxy(cmd, p string) error {
	rustup, ok := proxyOf(p)
	if !ok || filepath.Base(cmd) == "rustup" {
		return nil
	}
	return whichCache.which(rustup, filepath.Base(cmd), p)
}

// proxyOf reports whether p is rustup itself under another name (a
// symbolic link to it, or a hard link beside it), and returns rustup.
func proxyOf(p string) (string, bool) {
	if real, err := filepath.EvalSymlinks(p); err == nil && isRustup(filepath.Base(real)) {
		return real, true
	}
	beside := filepath.Join(filepath.Dir(p), "rustup")
	a, errA := os.Stat(p)
	b, errB := os.Stat(beside)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return beside, true
	}
	return "", false
}

func isRustup(name string) bool { return name == "rustup" || name == "rustup-init" }

// whichTTL is how long `rustup which` answers are kept: a component added
// meanwhile (rustup component add) is seen within it.
const whichTTL = 10 * time.Second

// whichTimeout bounds one `rustup which`.
const whichTimeout = 10 * time.Second

// whichCache remembers `rustup which` answers.
var whichCache = &cache{entries: map[string]cached{}}

type cache struct {
	mu      sync.Mutex
	entries map[string]cached // rustup + "\x00" + name
}

type cached struct {
	err error
	at  time.Time
}

func (c *cache) which(rustup, name, proxy string) error {
	key := rustup + "\x00" + name
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && time.Since(e.at) < whichTTL {
		return e.err
	}
	err := which(rustup, name, proxy)
	c.mu.Lock()
	if len(c.entries) > 64 {
		clear(c.entries)
	}
	c.entries[key] = cached{err: err, at: time.Now()}
	c.mu.Unlock()
	return err
}

// which asks rustup whether the toolchain has name.
func which(rustup, name, proxy string) error {
	ctx, cancel := context.WithTimeout(context.Background(), whichTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, rustup, "which", name).CombinedOutput()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return nil // rustup could not be asked: let the start tell
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return &ProxyError{Command: name, Path: proxy, Rustup: strings.TrimPrefix(line, "error: ")}
}
