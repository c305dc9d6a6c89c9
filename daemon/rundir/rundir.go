// Package rundir is the per-user runtime directory of agentlsp daemons:
// the entry each daemon writes to say where it listens (address, pid,
// version, token), the locks that make two daemons for one workspace and
// version impossible and serialize the clients that start one, and the
// daemons' log files.
//
// The directory is $XDG_RUNTIME_DIR/agentlsp, else agentlsp/run under the
// user's cache directory, with mode 0700; entries (they hold a token) have
// mode 0600. A daemon holds an exclusive flock on its lock file for its
// whole life, so a live daemon is one whose lock is held, whatever its
// entry says: an entry left by a killed daemon is stale and is removed by
// the next reader (under the lock, so never a fresh one).
//
// Nothing here starts a goroutine; functions that wait poll with a short
// sleep and honour their context.
package rundir

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Errors of the runtime directory.
var (
	// ErrInsecure: the runtime directory or an entry is not private to
	// this user.
	ErrInsecure = errors.New("rundir: not private to this user")
	// ErrLocked: a daemon already holds the lock of this workspace.
	ErrLocked = errors.New("rundir: a daemon already serves this workspace")
	// ErrNoDaemon: no live daemon serves this workspace.
	ErrNoDaemon = errors.New("rundir: no daemon serves this workspace")
	// ErrStarting: a daemon holds the lock but has not written its entry yet.
	ErrStarting = errors.New("rundir: the daemon is starting")
	// ErrUnsupported: shared daemons need flock (unix only).
	ErrUnsupported = errors.New("rundir: shared daemons are not supported on this system")
)

// pollInterval is how often waits re-check a lock.
const pollInterval = 10 * time.Millisecond

// Entry is what a daemon says about itself.
type Entry struct {
	Workspace  string    `json:"workspace"`
	Version    string    `json:"version"`
	ConfigFile string    `json:"configFile,omitempty"`
	PID        int       `json:"pid"`
	Address    string    `json:"address"` // protoactor remote, host:port on 127.0.0.1
	Front      string    `json:"front"`   // the front actor's process id
	Token      string    `json:"token"`
	HTTP       string    `json:"http,omitempty"` // MCP over streamable HTTP, when served
	Started    time.Time `json:"started"`
	Log        string    `json:"log,omitempty"`
}

// Dir returns the runtime directory, created with mode 0700 if needed. An
// existing directory must be a directory owned by this user; group and
// other permission bits are removed.
func Dir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	var dir string
	if base != "" {
		dir = filepath.Join(base, "agentlsp")
	} else {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("rundir: no runtime directory: %w", err)
		}
		dir = filepath.Join(cache, "agentlsp", "run")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("rundir: %w", err)
	}
	return dir, private(dir)
}

// Key names the files of the daemon for a workspace and version.
func Key(workspace, version string) string {
	h := sha256.Sum256([]byte(workspace + "\x00" + version))
	return hex.EncodeToString(h[:12])
}

// Files are the paths of one daemon's files.
type Files struct {
	Dir, Key string
}

// Entry is the daemon's entry file.
func (f Files) Entry() string { return filepath.Join(f.Dir, f.Key+".json") }

// Lock is the file the daemon holds locked while it lives.
func (f Files) Lock() string { return filepath.Join(f.Dir, f.Key+".lock") }

// Start is the file a client holds locked while it starts the daemon.
func (f Files) Start() string { return filepath.Join(f.Dir, f.Key+".start") }

// Log is the daemon's log file when started detached.
func (f Files) Log() string { return filepath.Join(f.Dir, f.Key+".log") }

// NewToken returns a fresh random token (256 bits, hex).
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Write writes the entry atomically (a temporary file renamed) with mode
// 0600. Only the daemon holding the lock writes it.
func (f Files) Write(e Entry) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.Dir, f.Key+".*.tmp")
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("rundir: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("rundir: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return os.Rename(tmp.Name(), f.Entry())
}

// Remove removes the entry (the daemon does, before it releases its lock).
func (f Files) Remove() error {
	err := os.Remove(f.Entry())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// read reads the entry, which must be private to this user.
func (f Files) read() (Entry, error) {
	if err := private(f.Entry()); err != nil {
		return Entry{}, err
	}
	b, err := os.ReadFile(f.Entry())
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, fmt.Errorf("rundir: %s: %w", f.Entry(), err)
	}
	return e, nil
}

// Find returns the entry of the live daemon: ErrNoDaemon when none holds
// the lock (a stale entry is removed), ErrStarting when one holds it but
// has not written its entry yet.
func (f Files) Find() (Entry, error) {
	live, err := f.probe()
	if err != nil {
		return Entry{}, err
	}
	if !live {
		return Entry{}, ErrNoDaemon
	}
	e, err := f.read()
	if errors.Is(err, os.ErrNotExist) {
		return Entry{}, ErrStarting
	}
	return e, err
}

// Wait waits until the live daemon has written its entry, or none is
// alive (ErrNoDaemon), or ctx ends.
func (f Files) Wait(ctx context.Context) (Entry, error) {
	for {
		e, err := f.Find()
		if !errors.Is(err, ErrStarting) {
			return e, err
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return Entry{}, err
		}
	}
}

// List returns the entries of every live daemon in dir, sorted by
// workspace and version, removing stale ones.
func List(dir string) ([]Entry, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, p := range paths {
		f := Files{Dir: dir, Key: strings.TrimSuffix(filepath.Base(p), ".json")}
		if e, err := f.Find(); err == nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Workspace != out[j].Workspace {
			return out[i].Workspace < out[j].Workspace
		}
		return out[i].Version < out[j].Version
	})
	return out, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
