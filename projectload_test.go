package agentlsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// A server that says it could not load its project (config LoadError),
// with the fake's --load-file: its files are answered project_error with
// its message, never fresh, until a load works. The fake registers no
// watcher, as rust-analyzer registers none until a workspace loaded: it
// hears of its fixed project file because agentlsp sends a failed
// project's root markers whatever the server registered.

// watchedFakeRuntime starts a runtime that watches the disk on a copy of
// the pyproj testdata, served by the fake with flags.
func watchedFakeRuntime(t *testing.T, flags ...string) (*agentlsp.Runtime, string) {
	t.Helper()
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	fake, _ := fakeServer(t, flags...)
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(fake)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, rt) })
	return rt, ws
}

func diagnosticsOf(t *testing.T, s *agentlsp.Session, rel string) messages.FileReport {
	t.Helper()
	reports, err := s.Diagnostics(context.Background(), []string{rel})
	if err != nil {
		t.Fatal(err)
	}
	return reports[0]
}

// TestProjectThatDoesNotLoadIsNoFreshAnswer: the fake says its
// pyproject.toml is broken, as an error showMessage (rust-analyzer's
// "Failed to load workspaces") or as a work-done progress held while the
// failure lasts (gopls's "Error loading workspace"), and publishes
// nothing for main.py. The answer was fresh and clean; it is
// project_error, quoting the server, and fresh again on the first call
// after the file is fixed on disk.
func TestProjectThatDoesNotLoadIsNoFreshAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, said string
		flags      []string
	}{
		{"message", "fake: the server could not load the project: Failed to load workspace: pyproject.toml is broken", nil},
		{"progress", "fake: the server could not load the project: Error loading workspace: pyproject.toml is broken", []string{"--load-progress"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, ws := watchedFakeRuntime(t, append([]string{"--load-file", "pyproject.toml"}, tc.flags...)...)
			good, err := os.ReadFile(filepath.Join(ws, "pyproject.toml"))
			if err != nil {
				t.Fatal(err)
			}
			write := func(text string) {
				if err := os.WriteFile(filepath.Join(ws, "pyproject.toml"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("broken =\n")
			s := rt.Session("agent")
			if r := diagnosticsOf(t, s, "main.py"); r.Status != messages.StatusProjectError || r.Detail != tc.said {
				t.Errorf("Diagnostics(main.py) with a broken project = %s (%s), want %s (%s)", r.Status, r.Detail, messages.StatusProjectError, tc.said)
			}
			write(string(good))
			if r := diagnosticsOf(t, s, "main.py"); r.Status != messages.StatusFresh {
				t.Errorf("Diagnostics(main.py) once the project is fixed = %s (%s), want fresh", r.Status, r.Detail)
			}
		})
	}
}

// TestProjectThatLoadsIsFresh: the same fake with a project that loads
// ("Loading pyproject.toml" and no failure) answers fresh.
func TestProjectThatLoadsIsFresh(t *testing.T) {
	rt, _ := watchedFakeRuntime(t, "--load-file", "pyproject.toml", "--load-progress")
	if r := diagnosticsOf(t, rt.Session("agent"), "main.py"); r.Status != messages.StatusFresh || !strings.Contains(r.URI, "main.py") {
		t.Errorf("Diagnostics(main.py) = %s (%s), want fresh", r.Status, r.Detail)
	}
}
