// Package fresh checks the promise of the word "fresh" against real
// language servers: an answer marked fresh describes every asked file as
// it is on disk after every change made before the call, whatever file
// the change was in, and agrees with the server's own command line.
package fresh

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// workspace writes files (relative path -> text) into a new directory.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, text := range files {
		write(t, ws, rel, text)
	}
	return ws
}

// withFiles is base with extra's files added (or replaced).
func withFiles(base, extra map[string]string) map[string]string {
	out := maps.Clone(base)
	maps.Copy(out, extra)
	return out
}

// write writes a file as an agent's own tools would: straight to disk.
func write(t *testing.T, ws, rel, text string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// start starts a runtime with the file watcher on the workspace.
func start(t *testing.T, ws string) *agentlsp.Runtime {
	t.Helper()
	var lg *slog.Logger
	if os.Getenv("FRESH_DEBUG") != "" {
		lg = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return startLogged(t, ws, lg)
}

// startLogged is start with the runtime's log going to lg.
func startLogged(t *testing.T, ws string, lg *slog.Logger) *agentlsp.Runtime {
	t.Helper()
	testenv.ServerBinary(t, "gopls")
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws,
		DiagnosticsTimeout: 20 * time.Second, Logger: lg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return rt
}

// diagnostics asks one file's diagnostics, as the MCP tool does, and
// returns its report and the other files reported.
func diagnostics(t *testing.T, s *agentlsp.Session, rel string) (messages.FileReport, []messages.FileReport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reports, err := s.Diagnostics(ctx, []string{rel})
	if err != nil {
		t.Fatalf("Diagnostics(%s): %v", rel, err)
	}
	return reports[0], reports[1:]
}

// freshDiagnostics asks again while a server is still starting (as the MCP
// tool does), or was too late for the wait (timeout, stale: a cold
// pyright took over 20 s at a load average of 14), and fails unless an
// answer within 90 s is fresh.
func freshDiagnostics(t *testing.T, s *agentlsp.Session, rel string) (messages.FileReport, []messages.FileReport) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, others := diagnostics(t, s, rel)
		if r.Status == messages.StatusFresh {
			return r, others
		}
		late := r.Status == messages.StatusNotReady || r.Status == messages.StatusTimeout || r.Status == messages.StatusStale
		if !late || time.Now().After(deadline) {
			t.Fatalf("Diagnostics(%s) = %s (%s), want fresh", rel, r.Status, r.Detail)
		}
	}
}

// errorsOf renders a report's errors as "line: first line of message"
// (1-based lines), sorted: what is compared with the oracle.
func errorsOf(r messages.FileReport) []string {
	var out []string
	for _, d := range r.Diagnostics {
		if d.Severity == messages.SeverityError {
			out = append(out, strconv.Itoa(int(d.Range.Start.Line)+1)+": "+firstLine(d.Message))
		}
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// goplsLine is one diagnostic line of `gopls check`: path:line:col[-col]: message.
var goplsLine = regexp.MustCompile(`^(.+?):(\d+):\d+(?:-\d+)?: (.*)$`)

// goplsCheck is the oracle: the errors `gopls check` reports for a file,
// in the form of errorsOf.
func goplsCheck(t *testing.T, ws, rel string) []string {
	t.Helper()
	cmd := exec.Command(testenv.ServerBinary(t, "gopls"), "check", "-severity=error", filepath.Join(ws, filepath.FromSlash(rel)))
	cmd.Dir = ws
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gopls check %s: %v\n%s", rel, err, out)
	}
	var errs []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := goplsLine.FindStringSubmatch(line); m != nil {
			errs = append(errs, m[2]+": "+strings.TrimSpace(m[3]))
		}
	}
	sort.Strings(errs)
	return errs
}

// contains reports whether one of the errors mentions s.
func contains(errs []string, s string) bool {
	for _, e := range errs {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}
