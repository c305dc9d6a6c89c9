package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes (agentlsp, gopls and their children); see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestSmoke runs every phase with a few calls on a small generated module
// against real gopls and a freshly built agentlsp. It asserts that every
// operation was answered correctly by both clients, every edit, cold start
// and check too, and that the temporary directory is gone; never timings.
func TestSmoke(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the run's temporary directory goes here
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The diagnostics calls come right after their writes, as an agent's
	// would: a right answer must wait for the write to reach gopls.
	args := []string{"--files", "5", "--calls", "3", "--warmup", "1", "--edits", "2", "--cold", "1",
		"--check-runs", "1", "--relay", "--deadline", "90s", "--json", jsonPath}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	rep := readReport(t, jsonPath)
	if len(rep.Ops) != len(operations) {
		t.Errorf("%d operations measured, want %d", len(rep.Ops), len(operations))
	}
	for _, o := range rep.Ops {
		checkSide(t, o.Op+" raw", o.Raw, 3)
		checkSide(t, o.Op+" mcp", o.MCP, 3)
		if o.Relayed == nil {
			t.Errorf("%s: no relayed raw client with --relay", o.Op)
		} else {
			checkSide(t, o.Op+" relayed", *o.Relayed, 3)
		}
	}
	if rep.Edit == nil || rep.Cold == nil || rep.Check == nil {
		t.Fatalf("report lacks a phase: edit %v, cold %v, check %v", rep.Edit, rep.Cold, rep.Check)
	}
	checkSide(t, "edit raw", rep.Edit.Raw, 2)
	checkSide(t, "edit raw, end of the diagnosis", rep.Edit.RawDone, 2)
	checkSide(t, "edit mcp", rep.Edit.MCP, 2)
	checkSide(t, "cold raw", rep.Cold.Raw, 1)
	checkSide(t, "cold mcp", rep.Cold.MCP, 1)
	checkSide(t, "gopls check", rep.Check.Gopls, 1)
	checkSide(t, "agentlsp check", rep.Check.Agentlsp, 1)
	if rep.Check.Ratio <= 0 || rep.Cold.Ratio <= 0 || rep.Machine.Gopls == "" {
		t.Errorf("report incomplete: check ratio %v, cold ratio %v, machine %+v", rep.Check.Ratio, rep.Cold.Ratio, rep.Machine)
	}
	if m := rep.Memory; m == nil || m.RawGopls <= 0 || m.Agentlsp <= 0 || m.AgentlspLSP <= 0 {
		t.Errorf("peak memory not read: %+v", m)
	}
	for _, want := range []string{"| goToDefinition |", "| outgoingCalls |", "lsprelay", "### Edit on disk", "### Cold start", "### One-shot check", "p99 within 2x of p50 (issue 14): raw gopls "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout.String())
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestSharedStopsItsDaemon: with --mcp-args --shared the MCP side attaches
// to a shared daemon it starts; the run stops that daemon (and with it its
// gopls) before it removes its directory, instead of leaving it to its
// idle timeout.
func TestSharedStopsItsDaemon(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	xdg, had := os.LookupEnv("XDG_RUNTIME_DIR")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--files", "5", "--calls", "2", "--warmup", "1", "--phases", "nav", "--ops", "hover",
		"--mcp-args", "--shared", "--deadline", "90s"}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| hover |") {
		t.Errorf("no hover measured through the daemon:\n%s", stdout.String())
	}
	testenv.NoProcesses(t) // the daemon and its gopls carry this test binary's mark too
	if now, has := os.LookupEnv("XDG_RUNTIME_DIR"); now != xdg || has != had {
		t.Errorf("XDG_RUNTIME_DIR after the run = %q (set %v), want %q (set %v) as before", now, has, xdg, had)
	}
}

// checkSide fails t unless n calls were made, all answered correctly.
func checkSide(t *testing.T, what string, s Side, n int) {
	t.Helper()
	if s.Calls != n || s.Correct != n || s.Count != n || s.P50 <= 0 {
		t.Errorf("%s: %d of %d correct, %d timed (p50 %.2f ms), want %d of %d: %s", what, s.Correct, s.Calls, s.Count, s.P50, n, n, s.Error)
	}
}

func readReport(t *testing.T, path string) *Report {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestParseLoc checks FILE:LINE:COL parsing.
func TestParseLoc(t *testing.T) {
	tests := []struct {
		in   string
		want loc
		ok   bool
	}{
		{"a/b.go:12:5", loc{Path: "a/b.go", Line: 12, Column: 5}, true},
		{"c:/x.go:1:1", loc{Path: "c:/x.go", Line: 1, Column: 1}, true},
		{"a.go:0:1", loc{}, false},
		{"a.go:3", loc{}, false},
		{"a.go:x:1", loc{}, false},
	}
	for _, tc := range tests {
		got, err := parseLoc(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseLoc(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrTarget) {
			t.Errorf("parseLoc(%q) error %v is not ErrTarget", tc.in, err)
		}
	}
}

// TestBrokenText checks the rename that breaks a call, and that a wrong
// position is refused.
func TestBrokenText(t *testing.T) {
	text := "package p\n\nfunc Run(x int) int {\n"
	got, err := brokenText(text, loc{Line: 3, Column: 6}, "Run")
	if want := "package p\n\nfunc RunBroken(x int) int {\n"; err != nil || got != want {
		t.Errorf("brokenText = %q, %v; want %q", got, err, want)
	}
	if _, err := brokenText(text, loc{Line: 3, Column: 5}, "Run"); !errors.Is(err, ErrTarget) {
		t.Errorf("brokenText at the wrong column: %v, want ErrTarget", err)
	}
	if id := identAt(text, loc{Line: 3, Column: 7}); id != "Run" {
		t.Errorf("identAt = %q, want Run", id)
	}
}

// TestColumns checks the conversions between 1-based character columns
// and 0-based UTF-16 offsets.
func TestColumns(t *testing.T) {
	line := "é𝄞x := 1" // é is one UTF-16 unit, 𝄞 two
	for _, tc := range []struct{ col, u16 int }{{1, 0}, {2, 1}, {3, 3}, {4, 4}} {
		if got := utf16Col(line, tc.col); got != tc.u16 {
			t.Errorf("utf16Col(%d) = %d, want %d", tc.col, got, tc.u16)
		}
		if got := charCol(line, tc.u16); got != tc.col {
			t.Errorf("charCol(%d) = %d, want %d", tc.u16, got, tc.col)
		}
	}
}

// TestSmokeLeanClient runs navigation and edits with the lean MCP client:
// every operation and edit answered correctly, the report naming it.
func TestSmokeLeanClient(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	t.Setenv("TMPDIR", t.TempDir())
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The same build is measured and is its own baseline: one build.
	bin, err := benchcmd.BuildAgentlsp(ctx, "mcpbench-test", t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--client", "lean", "--phases", "nav,edit", "--files", "5", "--calls", "2", "--warmup", "1",
		"--edits", "2", "--deadline", "90s", "--json", jsonPath, "--agentlsp", bin, "--baseline", bin}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	rep := readReport(t, jsonPath)
	if rep.Params.Client != "lean" || rep.Params.Baseline != bin {
		t.Errorf("report's client = %q, baseline %q; want lean and %s", rep.Params.Client, rep.Params.Baseline, bin)
	}
	if len(rep.Ops) != len(operations) {
		t.Errorf("%d operations measured, want %d", len(rep.Ops), len(operations))
	}
	for _, o := range rep.Ops {
		checkSide(t, o.Op+" mcp", o.MCP, 2)
		if o.Server.P50 <= 0 {
			t.Errorf("%s: no server time read from the lean client's answers: %+v", o.Op, o.Server)
		}
		if o.Baseline == nil {
			t.Errorf("%s: no baseline side with --baseline", o.Op)
			continue
		}
		checkSide(t, o.Op+" baseline", o.Baseline.MCP, 2)
		if o.Baseline.Diff.Pairs != 2 || o.Baseline.Own.Count != 2 {
			t.Errorf("%s: baseline own times %d, pairs %d; want 2 of each", o.Op, o.Baseline.Own.Count, o.Baseline.Diff.Pairs)
		}
	}
	if !strings.Contains(stdout.String(), "Against the baseline build "+bin) {
		t.Errorf("text report lacks the baseline's table:\n%s", stdout.String())
	}
	if rep.Edit == nil {
		t.Fatal("no edit phase in the report")
	}
	checkSide(t, "edit mcp", rep.Edit.MCP, 2)
}

// TestPairedMedian checks the median of paired differences and its 95 %
// interval against the order-statistics table: ranks 40 and 61 of 100.
func TestPairedMedian(t *testing.T) {
	ds := make([]time.Duration, 100)
	for i := range ds {
		ds[i] = time.Duration(100-i) * time.Microsecond // 100 µs down to 1 µs: sorting is the function's
	}
	want := PairedDiff{Pairs: 100, P50: 0.05, Lo: 0.04, Hi: 0.061}
	if got := pairedMedian(ds); got != want {
		t.Errorf("pairedMedian(1..100 µs) = %+v, want %+v", got, want)
	}
	if got := pairedMedian([]time.Duration{-30 * time.Microsecond}); got != (PairedDiff{Pairs: 1, P50: -0.03, Lo: -0.03, Hi: -0.03}) {
		t.Errorf("pairedMedian of one = %+v", got)
	}
	if got := pairedMedian(nil); got != (PairedDiff{}) {
		t.Errorf("pairedMedian(nil) = %+v, want zero", got)
	}
}
