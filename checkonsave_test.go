package agentlsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// The check on save (config CheckOnSave), with the fake's --check-on-save:
// a check of the files on disk, run after initialized and on each didSave
// in a "cargo check" work done progress, that alone reports "BORROW:"
// lines, as rust-analyzer's cargo check alone reports borrow-checker
// errors. test/fresh's TestRustBorrowErrorsAgreeWithCargoCheck runs
// rust-analyzer itself.

// reportOf is the report of the named file of a diagnostics call that
// waits at most timeout.
func reportOf(t *testing.T, s *agentlsp.Session, rel string, timeout time.Duration) messages.FileReport {
	t.Helper()
	reports, err := s.Diagnostics(context.Background(), []string{rel}, agentlsp.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	return reports[0]
}

// TestDiagnosticsWaitForTheServersCheckOnSave: a server that finds some
// errors only in a check of its own, run on save (rust-analyzer's cargo
// check, the only source of borrow-checker errors; the fake's
// --check-on-save, which alone reports "BORROW:" lines), is sent didSave
// after each change from disk, and the diagnostics of the changed file
// wait for the check that save began: the error comes and goes with the
// file on disk. Without the wait, the answer came from the pull alone,
// fresh and clean.
func TestDiagnosticsWaitForTheServersCheckOnSave(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"save in its capabilities", nil},
		// rust-analyzer registers for didSave, as a client that offers
		// dynamic registration lets it.
		{"save registered", []string{"--save-register"}},
	} {
		t.Run(tc.name, func(t *testing.T) { testCheckOnSave(t, tc.flags...) })
	}
}

func testCheckOnSave(t *testing.T, flags ...string) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	file := filepath.Join(ws, "moved.py")
	rt, record := fakeRuntimeIn(t, ws, func(s *config.Server) {
		s.CheckOnSave, s.IndexWait = "cargo check", config.Duration(20*time.Second)
	}, append([]string{"--pull", "--no-push", "--check-on-save", "300ms"}, flags...)...)
	for i, text := range []string{
		"v = take(v) # BORROW: use of moved value\n",
		"v = 1\n",
		"x = 2\nw = take(v) # BORROW: moved again\n",
	} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := reportOf(t, rt.Session("agent"), "moved.py", 20*time.Second)
		var got []string
		for _, d := range r.Diagnostics {
			got = append(got, fmt.Sprintf("%d %s %s", d.Range.Start.Line, d.Code, d.Message))
		}
		var want []string
		if _, msg, ok := strings.Cut(text, "BORROW: "); ok {
			want = []string{fmt.Sprintf("%d E0382 %s", strings.Count(text[:strings.Index(text, "BORROW")], "\n"),
				strings.TrimSpace(msg))}
		}
		if r.Status != messages.StatusFresh || !slices.Equal(got, want) {
			t.Errorf("round %d: report %s %q %q, want fresh with %q", i, r.Status, r.Detail, got, want)
		}
	}
	saves := 0
	for _, rec := range testenv.Records(t, record) {
		if rec.Method == "textDocument/didSave" {
			saves++
		}
	}
	// The first round's answer waits for the check the server runs after
	// it starts, which began after the file was opened.
	if saves < 2 {
		t.Errorf("%d didSave sent, want one for each of the 2 changes at least", saves)
	}
}

// TestACheckLongerThanItsWaitIsNotAnsweredClean: a pull held for a check
// on save that is still running IndexWait after it was first answered
// fails rather than go out without the check's findings (which said the
// file was clean of them): a call that ends meanwhile says the server is
// at work on the check, and one that waits gets the check's findings, by
// the pull the server asks for when its check ends.
func TestACheckLongerThanItsWaitIsNotAnsweredClean(t *testing.T) {
	// The first call must end while the check runs: on a loaded machine
	// the fake took longer than that call to start (it answered "still
	// starting"), or could start it after the check's end. So the server
	// is started first, and a first answer with the check's finding (the
	// check ended before it: right, but not what is tested; fresh, or
	// stale when the call ended before the pull that followed) is tried
	// again with a longer check. A first answer fresh without the finding
	// is the fault, whatever the check's length.
	for check := 3 * time.Second; ; check *= 2 {
		// A subtest each: its runtime is shut down (and checked to leave
		// no process) before the next.
		judged := false
		t.Run(fmt.Sprintf("check %v", check), func(t *testing.T) { judged = checkOutlastsFirstCall(t, check) })
		if judged || t.Failed() {
			return
		}
		if check >= 24*time.Second {
			t.Fatalf("a %v check ended before a first call that waits %v", check, check/3)
		}
		t.Logf("the %v check ended before the first call's answer: trying a longer one", check)
	}
}

// checkOutlastsFirstCall runs TestACheckLongerThanItsWaitIsNotAnsweredClean
// with a check on save lasting check. It returns false, without judging,
// when the first call was answered with the check's finding: the check
// had ended.
func checkOutlastsFirstCall(t *testing.T, check time.Duration) bool {
	t.Helper()
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	if err := os.WriteFile(filepath.Join(ws, "moved.py"), []byte("v = take(v) # BORROW: use of moved value\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) {
		s.CheckOnSave, s.IndexWait = "cargo check", config.Duration(300*time.Millisecond)
	}, "--pull", "--no-push", "--check-on-save", check.String())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rt.Probe(ctx); err != nil { // started, its check begun
		t.Fatal(err)
	}
	s := rt.Session("agent")
	r := reportOf(t, s, "moved.py", check/3)
	if len(r.Diagnostics) == 1 && r.Diagnostics[0].Message == "use of moved value" {
		return false // only the check reports it, at its end: fresh, or stale if the call ended first
	}
	if r.Status == messages.StatusFresh || !strings.Contains(r.Detail, "cargo check") {
		t.Errorf("while the check runs: report %s %q %+v, want not fresh, naming the check", r.Status, r.Detail, r.Diagnostics)
	}
	if r := reportOf(t, s, "moved.py", check+20*time.Second); r.Status != messages.StatusFresh || len(r.Diagnostics) != 1 || r.Diagnostics[0].Message != "use of moved value" {
		t.Errorf("after the check: report %s %q %+v, want fresh with the check's error", r.Status, r.Detail, r.Diagnostics)
	}
	return true
}

// TestAPulledServersPushDoesNotAnswerForItsPull: a server that is pulled
// and pushes besides (rust-analyzer pushes its cargo check's findings)
// answers a diagnostics call by its pull: a push of the version came
// first, and the call answered from it alone, fresh, without the pull's
// error (under load, with rust-analyzer's pull held past the timeout).
func TestAPulledServersPushDoesNotAnswerForItsPull(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	text := "x = 1 # ERROR: from the pull\nv = take(v) # BORROW: from the check\n"
	if err := os.WriteFile(filepath.Join(ws, "both.py"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) { s.CheckOnSave = "cargo check" },
		"--pull", "--no-push", "--check-on-save", "100ms", "--delay", "textDocument/diagnostic=1500ms")
	r := reportOf(t, rt.Session("agent"), "both.py", 20*time.Second)
	var got []string
	for _, d := range r.Diagnostics {
		got = append(got, d.Message)
	}
	slices.Sort(got)
	if want := []string{"from the check", "from the pull"}; r.Status != messages.StatusFresh || !slices.Equal(got, want) {
		t.Errorf("report %s %q %q, want fresh with %q", r.Status, r.Detail, got, want)
	}
}

// TestACheckPushesUnionUntilTheNextCheck: what a server that checks on
// save pushes for a document during one check is the union of its pushes
// (rust-analyzer's pushes grow as its check finds more, but under load its
// last push for a file once held an earlier, smaller set: the answer
// missed the error the check was for).
func TestACheckPushesUnionUntilTheNextCheck(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	file := filepath.Join(ws, "moved.py")
	rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) { s.CheckOnSave = "cargo check" },
		"--pull", "--no-push", "--check-on-save", "100ms", "--check-stale-last")
	s := rt.Session("agent")
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"a = f(v) # BORROW: first\nb = g(v) # BORROW: second\n", []string{"first", "second"}},
		{"a = 1\n", nil},
		{"a = f(v) # BORROW: third\nb = g(v) # BORROW: fourth\n", []string{"fourth", "third"}},
	} {
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := reportOf(t, s, "moved.py", 20*time.Second)
		var got []string
		for _, d := range r.Diagnostics {
			got = append(got, d.Message)
		}
		slices.Sort(got)
		if r.Status != messages.StatusFresh || !slices.Equal(got, tc.want) {
			t.Errorf("after writing %q: report %s %q %q, want fresh with %q", tc.text, r.Status, r.Detail, got, tc.want)
		}
	}
}

// TestAnOpenAsksForACheckOnlyWhereTheLastFoundSomething: a file opened on
// a server that checks on save needs a check of its own only when the
// last check found something in it (pushed without a version while it was
// closed, which its pulls do not merge with): opening a file the check
// found clean sends no didSave, and costs no check.
func TestAnOpenAsksForACheckOnlyWhereTheLastFoundSomething(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	for name, text := range map[string]string{"a.py": "a = 1\n", "b.py": "b = f(v) # BORROW: found while closed\n", "c.py": "c = 3\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rt, record := fakeRuntimeIn(t, ws, func(s *config.Server) { s.CheckOnSave = "cargo check" },
		"--pull", "--no-push", "--check-on-save", "100ms")
	s := rt.Session("agent")
	saves := func() int {
		n := 0
		for _, rec := range testenv.Records(t, record) {
			if rec.Method == "textDocument/didSave" {
				n++
			}
		}
		return n
	}
	if r := reportOf(t, s, "a.py", 20*time.Second); r.Status != messages.StatusFresh || len(r.Diagnostics) != 0 {
		t.Fatalf("a.py: %s (%s) %v, want fresh and clean", r.Status, r.Detail, r.Diagnostics)
	}
	r := reportOf(t, s, "b.py", 20*time.Second)
	if r.Status != messages.StatusFresh || len(r.Diagnostics) != 1 || r.Diagnostics[0].Message != "found while closed" {
		t.Errorf("b.py: %s (%s) %v, want fresh with the check's error", r.Status, r.Detail, r.Diagnostics)
	}
	if n := saves(); n != 1 {
		t.Errorf("%d didSave after opening b.py, want 1 (its own check)", n)
	}
	if r := reportOf(t, s, "c.py", 20*time.Second); r.Status != messages.StatusFresh || len(r.Diagnostics) != 0 {
		t.Errorf("c.py: %s (%s) %v, want fresh and clean", r.Status, r.Detail, r.Diagnostics)
	}
	if n := saves(); n != 1 {
		t.Errorf("%d didSave after opening c.py, which the check found clean, want still 1", n)
	}
}
