package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestUncheckedKeepsTheOthers: the runtime's failures for some files of
// a diagnostics call (the real ones, from Session.Diagnostics) leave the
// others' answers: a file deleted after checkFiles saw it, or outside the
// workspace, is skipped with its problem, a file no server serves is
// answered no_server with the reason, in its place (Session.Diagnostics
// answers it so, its path as the call named it); no named file left is
// the call's error.
func TestUncheckedKeepsTheOthers(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	ws := testenv.CopyDir(t, filepath.Join("..", "test", "testdata", "gonav"))
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := agentlsp.Start(ctx, agentlsp.Config{Workspace: ws, NoWatch: true, Registry: config.RegistryOf(fake),
		DiagnosticsTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rt.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	s := rt.Session("gone")
	tl := &tools{rt: rt, session: s}

	files := []string{"gone.go", "total.go", "notes.txt", "../outside.go", "also-gone.go"}
	reports, err := s.Diagnostics(ctx, files)
	if err == nil {
		t.Fatalf("Diagnostics of missing files succeeded: %+v", reports)
	}
	kept, skipped, err := tl.unchecked(ctx, files, reports, err)
	if err != nil {
		t.Fatalf("unchecked: %v", err)
	}
	if len(kept) != 2 || filepath.Base(kept[0].Path) != "total.go" || kept[0].Status == "" ||
		kept[1].Path != "notes.txt" || kept[1].Status != messages.StatusNoServer ||
		!strings.Contains(kept[1].Detail, "no language server for this file: notes.txt") {
		t.Errorf("kept %+v, want total.go's report, then notes.txt no_server", kept)
	}
	if len(skipped) != 3 || !errors.Is(skipped[0], messages.ErrFileNotFound) ||
		!errors.Is(skipped[1], messages.ErrOutsideWorkspace) || !strings.Contains(skipped[2].Error(), "also-gone.go") {
		t.Errorf("skipped %v, want gone.go, ../outside.go and also-gone.go with their problems", skipped)
	}

	files = []string{"gone.go"}
	reports, err = s.Diagnostics(ctx, files)
	if _, _, err := tl.unchecked(ctx, files, reports, err); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("unchecked with no file left = %v, want the call's not-found error", err)
	}
}
