package paths_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// TestReadTextLeasedTellsAWriterApart: a file some process has open for
// writing is read as LeaseBusy (its text may be half written: os.WriteFile
// truncates, then writes); once the writer closed it, LeaseHeld.
func TestReadTextLeasedTellsAWriterApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(path, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, _, lease, err := paths.ReadTextLeased(path, "a.go"); err != nil || lease != paths.LeaseHeld || text != "package a\n" {
		t.Fatalf("no writer: %q, lease %d, %v; want the text, LeaseHeld", text, lease, err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if text, _, lease, err := paths.ReadTextLeased(path, "a.go"); err != nil || lease != paths.LeaseBusy || text != "" {
		t.Errorf("a writer between truncation and write: %q, lease %d, %v; want \"\", LeaseBusy", text, lease, err)
	}
	w.WriteString("package b\n")
	w.Close()
	if text, _, lease, err := paths.ReadTextLeased(path, "a.go"); err != nil || lease != paths.LeaseHeld || text != "package b\n" {
		t.Errorf("the writer gone: %q, lease %d, %v; want the new text, LeaseHeld", text, lease, err)
	}
	// The lease is given up after the read: a writer's open does not wait.
	w, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("open for writing after a leased read: %v; want no lease left", err)
	}
	w.Close()
}

// TestNamedPipeIsRefusedAtOnce: a named pipe is no file to check, and
// opening one nobody writes to to read it would block for ever: CheckFile
// and ReadText refuse it at once, naming what it is.
func TestNamedPipeIsRefusedAtOnce(t *testing.T) {
	ws := t.TempDir()
	pipe := filepath.Join(ws, "pipe.py")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := paths.CheckFile(ws, "pipe.py"); !errors.Is(err, messages.ErrNotText) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("CheckFile(pipe) = %v; want ErrNotText naming a named pipe", err)
		}
		if _, _, err := paths.ReadText(pipe, "pipe.py"); !errors.Is(err, messages.ErrNotText) {
			t.Errorf("ReadText(pipe) = %v; want ErrNotText", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("reading a named pipe blocked") // the goroutine stays: the process is failing anyway
	}
}
