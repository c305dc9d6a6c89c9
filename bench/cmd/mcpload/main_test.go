package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes (agentlsp, gopls, pyright and their children); see
// testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestSmoke runs the load test twice, small and short, against real gopls
// and pyright and a freshly built agentlsp: 2 clients x 4 calls for 8 s,
// then 6 s with a gopls or a pyright killed every 2 s. It asserts what the
// load test promises, never a timing: every call answered, none wrong, no
// process left, the temporary directory gone, and every operation
// exercised. A diagnostics call follows its write at once.
func TestSmoke(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	testenv.ServerBinary(t, "pyright-langserver")
	bin := buildAgentlsp(t)
	common := []string{"--agentlsp", bin, "--clients", "2", "--concurrency", "4", "--grace", "3s", "--deadline", "2m"}
	t.Run("steady", func(t *testing.T) {
		rep := smokeRun(t, append(common, "--duration", "8s"))
		want := len(navCases()) + 4 // questions, and own and dependency edits in two languages
		if len(rep.Ops) != want {
			t.Errorf("%d operations exercised, want %d: %+v", len(rep.Ops), want, rep.Ops)
		}
		for _, o := range rep.Ops {
			if o.OK == 0 {
				t.Errorf("%s: no right answer in %d calls", o.Op, o.Calls)
			}
		}
	})
	t.Run("kill", func(t *testing.T) {
		rep := smokeRun(t, append(common, "--duration", "6s", "--kill-every", "2s"))
		if rep.Kills["gopls"]+rep.Kills["pyright"] == 0 {
			t.Errorf("no server killed: %v", rep.Kills)
		}
	})
}

// smokeRun runs the load test with args and checks its report.
func smokeRun(t *testing.T, args []string) *Report {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the run's temporary directory goes here
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, append(args, "--json", jsonPath), &stdout, &stderr)
	if err != nil && !errors.Is(err, ErrFailed) {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	rep := readReport(t, jsonPath)
	tot := rep.Total
	if tot.Calls == 0 || tot.Wrong != 0 || tot.Unanswered != 0 || len(rep.Processes.Left) != 0 || rep.Interrupted {
		t.Errorf("%d calls, %d wrong, %d unanswered, left over %q, interrupted %v; want calls, none wrong, unanswered or left\n%s",
			tot.Calls, tot.Wrong, tot.Unanswered, rep.Processes.Left, rep.Interrupted, stdout.String())
	}
	if tot.Unexpected > 0 {
		t.Logf("tool errors not explained by a fault (not asserted: they include timeouts of a loaded machine): %+v", rep.Unexpected)
	}
	for _, want := range []string{"| **total** |", "| agentlsp |", "Left over after the grace period"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, m := range rep.Memory {
		if m.Kind == "agentlsp" && m.Samples > 0 && m.GoroutinesLast <= 0 {
			t.Errorf("agentlsp's goroutines were not sampled (its --stats lines): %+v", m)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	return rep
}

// buildAgentlsp builds agentlsp once for both runs.
func buildAgentlsp(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentlsp")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/agentlsp/agentlsp/cmd/agentlsp").CombinedOutput()
	if err != nil {
		t.Fatalf("go build agentlsp: %v\n%s", err, out)
	}
	return bin
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

// TestEditVersions checks that consecutive versions of every edit file
// differ in what their diagnostics must show, so that an answer about the
// version before a write is always caught.
func TestEditVersions(t *testing.T) {
	for _, f := range workerEdits(3, 5) {
		for v := 1; v < 12; v++ {
			prev, cur := f.expectOf(v-1), f.expectOf(v)
			if prev.Match == cur.Match && prev.Line == cur.Line {
				t.Errorf("%s: versions %d and %d expect the same: %v", f.path, v-1, v, cur)
			}
			text := f.text(v)
			if cur.Match != "" && f.kind == editOwn {
				lines := strings.Split(text, "\n")
				if cur.Line > len(lines) || !strings.Contains(lines[cur.Line-1], cur.Match) {
					t.Errorf("%s version %d: line %d of %q does not hold %s", f.path, v, cur.Line, text, cur.Match)
				}
			}
		}
		if f.kind == editDep {
			lines := strings.Split(f.userText(), "\n")
			if e := f.expectOf(1); !strings.Contains(lines[e.Line-1], "Dep()") && !strings.Contains(lines[e.Line-1], "import dep") {
				t.Errorf("%s: line %d of the user is %q, not the use of the dependency", f.asked, e.Line, lines[e.Line-1])
			}
		}
	}
}

// TestSlope checks the least-squares slope and the percentiles.
func TestSlope(t *testing.T) {
	if got := slope([]float64{0, 1, 2, 3}, []float64{10, 12, 14, 16}); got != 2 {
		t.Errorf("slope of a line of slope 2 = %v", got)
	}
	if got := slope([]float64{1}, []float64{5}); got != 0 {
		t.Errorf("slope of one point = %v, want 0", got)
	}
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p50, p99 := percentile(xs, 50), percentile(xs, 99); p50 != 5 || p99 != 10 {
		t.Errorf("percentiles = %v, %v; want 5, 10", p50, p99)
	}
}
