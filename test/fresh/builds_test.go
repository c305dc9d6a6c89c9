package fresh

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestManyFilesAgreeWithGoplsCheck: one diagnostics call about many files
// answers each as `gopls check` of the same files does. gopls diagnoses a
// file in every build its open files call for: other.go
// (`//go:build !unix`) adds a windows build, in which the other files'
// syscall.Kill is undefined. The call opens every file before it waits
// for any; before, the first files were answered before other.go was
// open, without their windows errors (on this repository, `agentlsp check`
// of 150 files missed 16 of the 17 errors `gopls check` reported).
func TestManyFilesAgreeWithGoplsCheck(t *testing.T) {
	files := map[string]string{"go.mod": "module builds\n\ngo 1.22\n",
		"other.go": "//go:build !unix\n\npackage main\n\nfunc other() {}\n"}
	var names []string
	for i := range 9 { // more than the calls run at once (8): other.go waits for a free one
		name := fmt.Sprintf("k%d.go", i)
		files[name] = fmt.Sprintf("package main\n\nimport \"syscall\"\n\nfunc kill%d() error { return syscall.Kill(1, 0) }\n", i)
		names = append(names, name)
	}
	files["k0.go"] += "\nfunc main() {}\n"
	names = append(names, "other.go")
	ws := workspace(t, files)
	want := agreeWithGoplsCheck(t, start(t, ws).Session("agent"), ws, names, "")
	if !contains(want["k1.go"], "[windows]") {
		t.Errorf("gopls check reports no windows error for k1.go (%q): the test no longer tests anything", want["k1.go"])
	}
}

// agreeWithGoplsCheck asks s about the files in one diagnostics call and
// fails unless each is fresh with the errors `gopls check` of the same
// files reports (what names the case in the failures); it returns those.
func agreeWithGoplsCheck(t *testing.T, s *agentlsp.Session, ws string, names []string, what string) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reports, err := s.Diagnostics(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	want := goplsCheckFiles(t, ws, names)
	for i, name := range names {
		r := reports[i]
		if r.Status != "fresh" {
			t.Errorf("%s%s: %s (%s), want fresh", what, name, r.Status, r.Detail)
			continue
		}
		if got := errorsOf(r); !slices.Equal(got, want[name]) {
			t.Errorf("%s%s: fresh with errors %q, gopls check says %q", what, name, got, want[name])
		}
	}
	return want
}

// goplsCheckFiles is goplsCheck of several files in one run, by file.
func goplsCheckFiles(t *testing.T, ws string, rels []string) map[string][]string {
	t.Helper()
	args := []string{"check", "-severity=error"}
	for _, rel := range rels {
		args = append(args, filepath.Join(ws, filepath.FromSlash(rel)))
	}
	cmd := exec.Command(testenv.ServerBinary(t, "gopls"), args...)
	cmd.Dir = ws
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gopls check: %v\n%s", err, out)
	}
	errs := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := goplsLine.FindStringSubmatch(line); m != nil {
			rel := filepath.ToSlash(strings.TrimPrefix(m[1], ws+string(filepath.Separator)))
			errs[rel] = append(errs[rel], m[2]+": "+strings.TrimSpace(m[3]))
		}
	}
	for _, e := range errs {
		sort.Strings(e)
	}
	return errs
}

// TestOneTouchStandsForTheOthersOnGopls: a diagnostics call about several
// files after a change on disk to a file it does not name touches one of
// them on gopls, and that touch stands for the others' (messages.Barrier):
// gopls publishes, when its diagnosis ends, every open file whose errors
// changed, so what it published of the others is current once it
// described the touch and its diagnosis of it ended. Each round breaks or
// mends util.go, which the named files use, and every named file must
// agree with `gopls check` of the same files at the same moment; the
// runtime's debug log must show that other files were answered by a
// touch not their own, or this tests the touch of each file again.
func TestOneTouchStandsForTheOthersOnGopls(t *testing.T) {
	const good = "package main\n\nfunc helper() int { return 1 }\n"
	const bad = "package main\n\nfunc helper2() int { return 1 }\n"
	files := map[string]string{"go.mod": "module barrier\n\ngo 1.22\n", "util.go": good}
	var names []string
	for i := range 5 {
		name := fmt.Sprintf("u%d.go", i)
		files[name] = fmt.Sprintf("package main\n\nfunc use%d() int { return helper() }\n", i)
		names = append(names, name)
	}
	files["u0.go"] += "\nfunc main() {}\n"
	ws := workspace(t, files)
	var log testenv.Buffer
	s := startLogged(t, ws, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))).Session("agent")
	for round := range 4 {
		text := good
		if round%2 == 0 {
			text = bad
		}
		write(t, ws, "util.go", text)
		want := agreeWithGoplsCheck(t, s, ws, names, fmt.Sprintf("round %d, ", round))
		if broken := len(want["u1.go"]) > 0; broken != (text == bad) {
			t.Fatalf("round %d: gopls check says u1.go has errors %q with util.go %q: the test no longer tests anything", round, want["u1.go"], text)
		}
	}
	if !strings.Contains(log.String(), "stands for its own") {
		t.Error("no file was answered by another's touch: the barrier was never used")
	}
}
