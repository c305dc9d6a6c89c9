package mcp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestWithoutGoneKeepsTheOthers: when a file the diagnostics tool
// checked is deleted before the runtime reads it, the runtime's failure
// for it (the real one, from Session.Diagnostics) leaves the others'
// answers, and the file is named as skipped; any other failure, or no
// named file left, stays the call's error.
func TestWithoutGoneKeepsTheOthers(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	ws := testenv.CopyDir(t, filepath.Join("..", "test", "testdata", "gonav"))
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

	reports, err := s.Diagnostics(ctx, []string{"gone.go", "total.go", "also-gone.go"})
	if err == nil {
		t.Fatalf("Diagnostics of missing files succeeded: %+v", reports)
	}
	kept, skipped, err := withoutGone(reports, err)
	if err != nil {
		t.Fatalf("withoutGone: %v", err)
	}
	if len(kept) != 1 || filepath.Base(kept[0].Path) != "total.go" || kept[0].Status == "" {
		t.Errorf("kept %+v, want total.go's report alone", kept)
	}
	if len(skipped) != 2 || !errors.Is(skipped[0], messages.ErrFileNotFound) ||
		!strings.Contains(skipped[0].Error()+skipped[1].Error(), "also-gone.go") {
		t.Errorf("skipped %v, want gone.go and also-gone.go as not found", skipped)
	}

	reports, err = s.Diagnostics(ctx, []string{"gone.go"})
	if _, _, err := withoutGone(reports, err); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("withoutGone with no file left = %v, want the call's not-found error", err)
	}
	reports, err = s.Diagnostics(ctx, []string{"total.go", "../outside.go"})
	if _, _, err := withoutGone(reports, err); !errors.Is(err, messages.ErrOutsideWorkspace) {
		t.Errorf("withoutGone with a path outside = %v, want the call's error", err)
	}
}
