package rundir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks for leaked goroutines and processes (testenv.Main).
// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

// files returns the files of a daemon in a fresh runtime directory.
func files(t *testing.T) Files {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	return Files{Dir: dir, Key: Key("/w", "v1")}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestDirIsPrivate(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	if err := os.Mkdir(filepath.Join(base, "agentlsp"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(base, "agentlsp") || mode(t, dir) != 0o700 {
		t.Errorf("Dir() = %s with mode %v, want %s/agentlsp with mode 0700", dir, mode(t, dir), base)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	if dir, err := Dir(); err != nil || dir != filepath.Join(base, "cache", "agentlsp", "run") || mode(t, dir) != 0o700 {
		t.Errorf("Dir() without XDG_RUNTIME_DIR = %s, %v, want the cache's agentlsp/run with mode 0700", dir, err)
	}
}

func TestDirOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	dir := filepath.Join(base, "agentlsp")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); !errors.Is(err, ErrInsecure) {
		t.Errorf("Dir() on another user's directory = %v, want ErrInsecure", err)
	}
}

func TestEntryLifecycle(t *testing.T) {
	f := files(t)
	if _, err := f.Find(); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("Find() with no daemon = %v, want ErrNoDaemon", err)
	}
	lock, err := f.AcquireDaemon()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Find(); !errors.Is(err, ErrStarting) {
		t.Errorf("Find() before the entry = %v, want ErrStarting", err)
	}
	want := Entry{Workspace: "/w", Version: "v1", PID: 42, Address: "127.0.0.1:1", Token: "secret", Started: time.Unix(1, 0).UTC()}
	if err := f.Write(want); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, f.Entry()); m != 0o600 {
		t.Errorf("entry mode = %v, want 0600", m)
	}
	if got, err := f.Wait(context.Background()); err != nil || got != want {
		t.Errorf("Wait() = %+v, %v, want %+v", got, err, want)
	}
	if got, err := List(f.Dir); err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("List() = %+v, %v, want the one entry", got, err)
	}
	if _, err := f.AcquireDaemon(); !errors.Is(err, ErrLocked) {
		t.Errorf("a second AcquireDaemon() = %v, want ErrLocked", err)
	}
	lock.Release() // the daemon was killed: its entry stays behind
	if _, err := f.Find(); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("Find() after the daemon died = %v, want ErrNoDaemon", err)
	}
	if _, err := os.Stat(f.Entry()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale entry was not removed: %v", err)
	}
}

func TestLooseEntryIsRefused(t *testing.T) {
	f := files(t)
	lock, err := f.AcquireDaemon()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if err := f.Write(Entry{Workspace: "/w", Token: "secret"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.Entry(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Find(); !errors.Is(err, ErrInsecure) {
		t.Errorf("Find() of a world-readable entry = %v, want ErrInsecure", err)
	}
}

func TestStartLockSerializes(t *testing.T) {
	f := files(t)
	first, err := f.AcquireStart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := f.AcquireStart(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AcquireStart() while held = %v, want the context's deadline", err)
	}
	first.Release()
	second, err := f.AcquireStart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second.Release()
}

func TestKeySeparatesVersions(t *testing.T) {
	if Key("/w", "v1") == Key("/w", "v2") || Key("/w", "v1") == Key("/x", "v1") {
		t.Error("Key must differ per workspace and per version")
	}
}
