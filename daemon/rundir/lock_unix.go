//go:build unix

package rundir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// daemonLockWait is how long a daemon retries its lock: a client probing
// liveness holds it for an instant.
const daemonLockWait = 500 * time.Millisecond

// Lock is a held flock. Release it once.
type Lock struct {
	f *os.File
}

// Release unlocks and closes the lock file.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// tryLock takes an exclusive flock on path without waiting; ok is false
// when another holds it.
func tryLock(path string) (l *Lock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("rundir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("rundir: flock %s: %w", path, err)
	}
	return &Lock{f: f}, true, nil
}

// lockWithin polls for the lock of path until it is taken, d passes
// (ok false) or ctx ends.
func lockWithin(ctx context.Context, path string, d time.Duration) (*Lock, bool, error) {
	deadline := time.Now().Add(d)
	for {
		l, ok, err := tryLock(path)
		if err != nil || ok {
			return l, ok, err
		}
		if d >= 0 && time.Now().After(deadline) {
			return nil, false, nil
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return nil, false, err
		}
	}
}

// AcquireDaemon takes the daemon lock of f (ErrLocked when a live daemon
// holds it) and removes a stale entry. The daemon holds it until it exits.
func (f Files) AcquireDaemon() (*Lock, error) {
	l, ok, err := lockWithin(context.Background(), f.Lock(), daemonLockWait)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrLocked
	}
	if err := f.Remove(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// AcquireStart waits for the start lock of f, which a client holds while
// it starts a daemon, so that clients starting at once start one.
func (f Files) AcquireStart(ctx context.Context) (*Lock, error) {
	l, _, err := lockWithin(ctx, f.Start(), -1)
	return l, err
}

// probe reports whether a daemon holds the lock. When none does, it
// removes the stale entry while holding the lock itself.
func (f Files) probe() (bool, error) {
	l, ok, err := tryLock(f.Lock())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if !ok {
		return true, nil
	}
	defer l.Release()
	return false, f.Remove()
}

// private checks that path belongs to this user and that no one else may
// read it: a directory with group or other bits gets mode 0700 (it was
// made with a loose umask); a file with them is refused, because its
// token may have been read.
func private(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() || fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s belongs to another user or is a symlink", ErrInsecure, path)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s has mode %v", ErrInsecure, path, fi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o700); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInsecure, path, err)
	}
	return nil
}
