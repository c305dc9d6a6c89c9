package supervisor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/google/go-cmp/cmp"
)

// startErr returns the error of starting path; it fails the test if the
// start succeeds.
func startErr(t *testing.T, path string) error {
	t.Helper()
	cmd := exec.Command(path)
	err := cmd.Start()
	if err == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("exec.Command(%q).Start() = nil, want an error", path)
	}
	return err
}

// writeFile writes an unusable executable candidate and returns its path.
func writeFile(t *testing.T, name, content string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClassify(t *testing.T) {
	exitErr := exec.Command("sh", "-c", "exit 3").Run()
	if exitErr == nil {
		t.Fatal(`sh -c "exit 3" succeeded`)
	}
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"missing path", startErr(t, "/nonexistent/x"), SpawnFailure},
		{"not in PATH", startErr(t, "agentlsp-no-such-server"), SpawnFailure},
		{"not executable", startErr(t, writeFile(t, "srv", "#!/bin/sh\n", 0o644)), SpawnFailure},
		{"directory", startErr(t, t.TempDir()), SpawnFailure},
		{"bad format", startErr(t, writeFile(t, "bad", "\x7fELF\x00garbage", 0o755)), SpawnFailure},
		{"wrapped SpawnError", fmt.Errorf("transport: %w", &messages.SpawnError{Command: "gopls"}), SpawnFailure},
		{"process exit", exitErr, Crash},
		{"plain", errors.New("read |0: broken pipe"), Crash},
		{"nil", nil, Crash},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestSpawnError(t *testing.T) {
	hint := "install it: go install golang.org/x/tools/gopls@latest"
	missing := startErr(t, "agentlsp-no-such-server")
	tests := []struct {
		err  *messages.SpawnError
		want string
	}{
		{
			&messages.SpawnError{Command: "gopls", Err: &exec.Error{Name: "gopls", Err: exec.ErrNotFound}, Hint: hint},
			`agentlsp: cannot start "gopls": executable file not found in $PATH; ` + hint,
		},
		{
			&messages.SpawnError{Command: "agentlsp-no-such-server", Err: missing},
			`agentlsp: cannot start "agentlsp-no-such-server": executable file not found in $PATH`,
		},
		{&messages.SpawnError{Command: "x", Err: errors.New("boom")}, `agentlsp: cannot start "x": boom`},
		{&messages.SpawnError{Command: "x"}, `agentlsp: cannot start "x"`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	wrapped := fmt.Errorf("transport: %w", tests[1].err)
	if !errors.Is(wrapped, ErrSpawn) || !errors.Is(wrapped, exec.ErrNotFound) {
		t.Errorf("errors.Is(%v, ErrSpawn / exec.ErrNotFound) = false, want true", wrapped)
	}
}

// outcome is the comparable part of a Decision.
type outcome struct {
	Action  Action
	Delay   time.Duration
	Attempt int
	RetryAt time.Time
}

func outcomeOf(d Decision) outcome {
	return outcome{d.Action, d.Delay, d.Attempt, d.RetryAt}
}

func TestDecideWithoutBudget(t *testing.T) {
	missing := startErr(t, "/nonexistent/x")
	tests := []struct {
		name        string
		err         error
		restartable bool
		wantErr     []error
		wantReason  string
	}{
		{"spawn failure", missing, true, []error{ErrSpawn, os.ErrNotExist}, `cannot start "/nonexistent/x"`},
		{"spawn error", &messages.SpawnError{Command: "gopls", Hint: "install"}, true, []error{ErrSpawn}, "; install"},
		{"not restartable", errors.New("exit status 2"), false, []error{ErrNotRestartable}, `"exit status 2"`},
	}
	for _, tt := range tests {
		b := NewBudget(Policy{})
		d := Decide(Policy{}, b, tt.err, tt.restartable, t0, 0.5)
		if diff := cmp.Diff(outcome{Action: Broken}, outcomeOf(d)); diff != "" {
			t.Errorf("%s: Decide (-want +got):\n%s", tt.name, diff)
		}
		for _, target := range tt.wantErr {
			if !errors.Is(d.Err, target) {
				t.Errorf("%s: errors.Is(%v, %v) = false, want true", tt.name, d.Err, target)
			}
		}
		if !strings.Contains(d.Reason, tt.wantReason) {
			t.Errorf("%s: Reason = %q, want it to contain %q", tt.name, d.Reason, tt.wantReason)
		}
		if got := b.Recent(t0); got != 0 {
			t.Errorf("%s: budget Recent = %d, want 0 (budget unused)", tt.name, got)
		}
	}
}

func TestDecideCrashes(t *testing.T) {
	p := Policy{Jitter: -1}
	b := NewBudget(p)
	crash := errors.New("exit status 1")
	steps := []struct {
		at   time.Duration
		want outcome
	}{
		{0, outcome{Action: Restart, Delay: 500 * time.Millisecond, Attempt: 0}},
		{10 * time.Second, outcome{Action: Restart, Delay: time.Second, Attempt: 1}},
		{20 * time.Second, outcome{Action: Restart, Delay: 2 * time.Second, Attempt: 2}},
		{30 * time.Second, outcome{Action: Restart, Delay: 4 * time.Second, Attempt: 3}},
		{40 * time.Second, outcome{Action: Broken, Attempt: 4, RetryAt: at(3 * time.Minute)}},
		// RetryAt has passed: one try is allowed (the budget is not spent);
		// it crashes at once, so broken again for a full window.
		{3*time.Minute + time.Second, outcome{Action: Broken, Attempt: 4, RetryAt: at(6*time.Minute + time.Second)}},
		// The next try ran a full window before crashing: restarted again.
		{9*time.Minute + time.Second, outcome{Action: Restart, Delay: 500 * time.Millisecond, Attempt: 0}},
	}
	for i, s := range steps {
		now := at(s.at)
		if i > 0 && b.Spent(now) {
			t.Fatalf("step %d at %v: budget spent, no try allowed", i, s.at)
		}
		d := Decide(p, b, crash, true, now, 0)
		if diff := cmp.Diff(s.want, outcomeOf(d)); diff != "" {
			t.Errorf("step %d at %v: Decide (-want +got):\n%s", i, s.at, diff)
		}
		if !strings.Contains(d.Reason, `"exit status 1"`) {
			t.Errorf("step %d: Reason = %q, want the quoted error", i, d.Reason)
		}
		if s.want.Action == Broken && !errors.Is(d.Err, ErrBudgetSpent) {
			t.Errorf("step %d: Err = %v, want ErrBudgetSpent", i, d.Err)
		}
	}
}

func TestDecideJitter(t *testing.T) {
	b := NewBudget(Policy{})
	d := Decide(Policy{}, b, errors.New("x"), true, t0, 0)
	if want := 400 * time.Millisecond; d.Delay != want {
		t.Errorf("Decide(rnd 0).Delay = %v, want %v", d.Delay, want)
	}
}

func TestKindAndActionStrings(t *testing.T) {
	got := []string{Crash.String(), SpawnFailure.String(), Restart.String(), Broken.String(), Action(0).String()}
	want := []string{"crash", "spawn failure", "restart", "broken", "Action(0)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("String() (-want +got):\n%s", diff)
	}
}
