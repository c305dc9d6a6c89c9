package fresh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// TestMovedPackageDirectory: a package directory renamed or moved out of
// the workspace (one rename: inotify reports the directory, not the files
// in it) is gone for gopls too. The caller's next answer is fresh and
// shows the broken import, as gopls check does; moved back, it is clean
// again; a file of the package that was open is closed, and navigation
// into it is a clear error.
func TestMovedPackageDirectory(t *testing.T) {
	ws := workspace(t, goFiles)
	s := start(t, ws).Session("agent")
	ctx := context.Background()
	r, _ := freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Fatalf("before: %v, want clean", errs)
	}
	move := func(from, to string) {
		t.Helper()
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	util, renamed := filepath.Join(ws, "util"), filepath.Join(ws, "util2")

	// Never opened: gopls knows its files from loading the package.
	move(util, renamed)
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "could not import example.com/app/util") {
		t.Errorf("after renaming util/: %v, want the import broken", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)

	move(renamed, util)
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("after renaming it back: %v, want clean", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)

	// Open (a navigation opened it), then moved out of the workspace.
	if _, err := s.Hover(ctx, "util/util.go", agentlsp.Position{Line: 3, Character: 6}); err != nil {
		t.Fatalf("Hover(util.go): %v", err)
	}
	move(util, filepath.Join(t.TempDir(), "util"))
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "could not import example.com/app/util") {
		t.Errorf("after moving util/ away: %v, want the import broken", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)
	if _, err := s.Definition(ctx, "util/util.go", agentlsp.Position{Line: 3, Character: 6}); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("Definition in the moved file = %v, want ErrFileNotFound", err)
	}
	// The call site's definition no longer leads into the moved file.
	locs, err := s.Definition(ctx, "cmd/main.go", agentlsp.Position{Line: 9, Character: 19})
	if err == nil {
		for _, l := range locs.Locations {
			if strings.Contains(l.URI, "/util/util.go") {
				t.Errorf("definition of util.Greeting after the move: %s, a file that is gone", l.URI)
			}
		}
	}
}
