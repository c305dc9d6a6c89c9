package fresh

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// Package a is imported by b; package e stands alone.
var attrFiles = map[string]string{
	"go.mod": "module example.com/attr\n\ngo 1.22\n",
	"a/a.go": "package a\n\n// F is changed by session A.\nfunc F(x int) int { return x }\n",
	"b/b.go": "package b\n\nimport \"example.com/attr/a\"\n\n// G calls a.F.\nfunc G() int { return a.F(1) }\n",
	"e/e.go": "package e\n\n// E stands alone.\nfunc E() int { return 1 }\n",
	"c/c.go": "package c\n\nimport \"example.com/attr/e\"\n\n// H calls e.E.\nfunc H() int { return e.E() }\n",
}

const brokenA = "package a\n\n// F is changed by session A.\nfunc F(x, y int) int { return x + y }\n"

func names(fs []messages.FileReport) []string {
	var out []string
	for _, f := range fs {
		out = append(out, filepath.ToSlash(f.Path))
	}
	return out
}

func has(fs []messages.FileReport, rel string) bool {
	for _, n := range names(fs) {
		if n == rel {
			return true
		}
	}
	return false
}

// warm opens every file in a session so gopls has diagnosed them all.
func warm(t *testing.T, s *agentlsp.Session, files ...string) {
	for _, f := range files {
		freshDiagnostics(t, s, f)
	}
}

// TestAloneEditCascadeIsExact: an edit alone reports the files it broke.
func TestAloneEditCascadeIsExact(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	a := rt.Session("A")
	warm(t, a, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	res, err := a.Edit(context.Background(), "a/a.go", brokenA, agentlsp.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !has(res.Files, "b/b.go") || len(res.Meanwhile) != 0 {
		t.Errorf("A alone: files %v, meanwhile %v; want b/b.go caused, nothing meanwhile", names(res.Files), names(res.Meanwhile))
	}
}

// TestOtherSessionsBreakageIsNotYours: session A breaks b while session B
// edits a comment in e at the same time: B's answer does not name b's
// errors as its own; A's does.
func TestOtherSessionsBreakageIsNotYours(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	sa, sb := rt.Session("A"), rt.Session("B")
	warm(t, sa, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	var resA, resB *messages.EditResult
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() {
		resA, errA = sa.Edit(context.Background(), "a/a.go", brokenA, agentlsp.WithTimeout(20*time.Second))
	})
	wg.Go(func() {
		resB, errB = sb.Edit(context.Background(), "e/e.go", attrFiles["e/e.go"]+"\n// a comment\n",
			agentlsp.WithTimeout(20*time.Second))
	})
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if has(resB.Files, "b/b.go") {
		t.Errorf("B's comment edit names b/b.go as broken by it: files %v", names(resB.Files))
	}
	if !has(resA.Files, "b/b.go") {
		t.Errorf("A's edit does not name b/b.go: files %v, meanwhile %v", names(resA.Files), names(resA.Meanwhile))
	}
}

// TestDiskChangeIsNotBlamedOnAnEdit: a file written on disk while an edit
// waits breaks another package: the edit does not take it as its own.
func TestDiskChangeIsNotBlamedOnAnEdit(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	s := rt.Session("B")
	warm(t, s, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	done := make(chan struct{})
	go func() { // ends when the edit returned
		defer close(done)
		time.Sleep(20 * time.Millisecond) // while the edit waits: a real agent's timing, not a synchronisation
		write(t, ws, "a/a.go", brokenA)
	}()
	res, err := s.Edit(context.Background(), "e/e.go", attrFiles["e/e.go"]+"\n// a comment\n",
		agentlsp.WithTimeout(20*time.Second))
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if has(res.Files, "b/b.go") {
		t.Errorf("a change on disk to a/a.go blamed on an edit of e/e.go: files %v", names(res.Files))
	}
}

// TestDiagnosticsCallAttribution: an agent that writes files itself and
// then asks for their diagnostics hears of another file's new errors as
// its change's only when the files it names are the only changes that
// could have made them; a file another agent wrote on disk meanwhile is
// named as their possible cause.
func TestDiagnosticsCallAttribution(t *testing.T) {
	files := maps.Clone(attrFiles)
	files["a/a2.go"] = "package a\n\n// K is a's second file.\nfunc K() int { return 2 }\n"
	ws := workspace(t, files)
	s := start(t, ws).Session("A")
	warm(t, s, "a/a.go", "a/a2.go", "b/b.go", "e/e.go", "c/c.go")

	// Another agent breaks a; A asks about e, which it did not change.
	write(t, ws, "a/a.go", brokenA)
	if b := otherFile(t, s, "b/b.go", []string{"e/e.go"}); !slices.Contains(b.ChangedBy, "a change on disk to a/a.go") {
		t.Errorf("b/b.go, broken by another agent's a/a.go: changed by %q, want the change to a/a.go named", b.ChangedBy)
	}

	// a is repaired; then A changes both files of a and names both: what
	// broke b is its own, though each file alone is not all of it.
	repairA(t, s, ws, files["a/a.go"])
	write(t, ws, "a/a.go", brokenA)
	write(t, ws, "a/a2.go", files["a/a2.go"]+"\n// A's comment.\n")
	if b := otherFile(t, s, "b/b.go", []string{"a/a.go", "a/a2.go"}); len(b.ChangedBy) != 0 {
		t.Errorf("b/b.go, broken by A's own a/a.go: changed by %q, want nothing else", b.ChangedBy)
	}

	// The same, asking about each file in a call of its own, each call
	// naming the other (WithNamed), as agentlsp check does.
	repairA(t, s, ws, files["a/a.go"])
	write(t, ws, "a/a.go", brokenA)
	write(t, ws, "a/a2.go", files["a/a2.go"]+"\n// A's second comment.\n")
	if b := otherFile(t, s, "b/b.go", []string{"a/a.go"}, agentlsp.WithNamed("a/a.go", "a/a2.go")); len(b.ChangedBy) != 0 {
		t.Errorf("b/b.go, broken by A's own a/a.go, asked about a/a.go alone WithNamed a/a2.go: changed by %q, want nothing else", b.ChangedBy)
	}
}

// repairA writes a/a.go's good text and waits until b/b.go, which uses it,
// has no errors.
func repairA(t *testing.T, s *agentlsp.Session, ws, good string) {
	t.Helper()
	write(t, ws, "a/a.go", good)
	deadline := time.Now().Add(90 * time.Second)
	for b, _ := freshDiagnostics(t, s, "b/b.go"); len(errorsOf(b)) > 0; b, _ = freshDiagnostics(t, s, "b/b.go") {
		if time.Now().After(deadline) {
			t.Fatalf("b/b.go after a was repaired: %v", errorsOf(b))
		}
	}
}

// otherFile asks for the named files' diagnostics until other is among
// the other files of an answer (its server may publish a moment later),
// and returns its report.
func otherFile(t *testing.T, s *agentlsp.Session, other string, named []string, opts ...agentlsp.EditOption) messages.FileReport {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		reports, err := s.Diagnostics(ctx, named, opts...)
		cancel()
		if err != nil {
			t.Fatalf("Diagnostics(%v): %v", named, err)
		}
		for _, r := range reports[len(named):] {
			if filepath.ToSlash(r.Path) == other {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Diagnostics(%v): %s never among the other files (last %v)", named, other, names(reports))
		}
	}
}

// TestAnotherSessionsDiagnosticsCallIsNoChange: another session asking
// for a file's diagnostics while an edit waits changes nothing: what the
// edit broke in that file stays the edit's.
func TestAnotherSessionsDiagnosticsCallIsNoChange(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	a, b := rt.Session("A"), rt.Session("B")
	warm(t, a, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	stop, first, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { // B asks about b/b.go until A's edit is answered; joined below
		defer close(done)
		for n, deadline := 0, time.Now().Add(time.Minute); time.Now().Before(deadline); n++ {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, err := b.Diagnostics(ctx, []string{"b/b.go"})
			cancel()
			if err != nil {
				t.Errorf("B's Diagnostics: %v", err)
				return
			}
			if n == 0 {
				close(first)
			}
		}
	}()
	select { // A edits while B keeps asking
	case <-first:
	case <-done:
		t.Fatal("B's first call failed")
	}
	defer func() { close(stop); <-done }()
	// B's calls give b/b.go new versions of the same text (touches) while
	// A's edit waits: what gopls published for b's text once A's change
	// was out still describes it (an answer left b out when B's newest
	// touch was not diagnosed yet).
	res, err := a.Edit(context.Background(), "a/a.go", brokenA, agentlsp.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !has(res.Files, "b/b.go") || has(res.Meanwhile, "b/b.go") {
		t.Errorf("A's edit broke b/b.go while B only asked about it: files %v, meanwhile %v (changed by %v)",
			names(res.Files), names(res.Meanwhile), res.Meanwhile)
	}
}

// TestNewSessionHearsWhatItsFileBroke: an agent that changed a file on
// disk and then asks about it in a session of its own (each `agentlsp
// check --shared` is one, on a runtime that watched the change and had
// gopls diagnose it already) hears of the other file the change broke,
// as the change's.
func TestNewSessionHearsWhatItsFileBroke(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	observer := rt.Session("observer")
	warm(t, observer, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	write(t, ws, "a/a.go", brokenA)
	deadline := time.Now().Add(90 * time.Second)
	for b, _ := freshDiagnostics(t, observer, "b/b.go"); len(errorsOf(b)) == 0; b, _ = freshDiagnostics(t, observer, "b/b.go") {
		if time.Now().After(deadline) {
			t.Fatal("b/b.go never broke after a/a.go's change")
		}
	}
	_, others := freshDiagnostics(t, rt.Session("checker"), "a/a.go")
	i := slices.IndexFunc(others, func(r messages.FileReport) bool { return filepath.ToSlash(r.Path) == "b/b.go" })
	switch {
	case i < 0:
		t.Errorf("other files %v, want b/b.go, which the change to a/a.go broke", names(others))
	case len(others[i].ChangedBy) > 0:
		t.Errorf("b/b.go changed by %q, want nothing but a/a.go's change", others[i].ChangedBy)
	}
}

// TestClosedFileBrokenIsReported: a file no session has open any more
// (the agents that opened it have gone) is reported among a diagnostics
// call's other files when a change breaks it: gopls describes it as it
// is on disk, which is current though the file had a higher version
// while it was open.
func TestClosedFileBrokenIsReported(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	gone := rt.Session("gone")
	warm(t, gone, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	if err := gone.End(context.Background()); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "a/a.go", brokenA)
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; ; n++ { // each call a session of its own, as agentlsp check --shared makes
		_, others := freshDiagnostics(t, rt.Session("checker-"+strconv.Itoa(n)), "a/a.go")
		if has(others, "b/b.go") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("b/b.go, closed, broken by a/a.go: never among the other files (last %v)", names(others))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestEndedSessionsNameStartsAfresh: a session ended (Session.End) and
// started again under the same name is a new session: its first
// diagnostics call names another file's error the ended session had been
// shown, as the first call of a session of a new name does. Before, the
// diagnostics actor kept what the ended session had been shown unless it
// had subscribed to batches, and the new session was never told.
//
// A session's first answer names the errors written since the change on
// disk to the file it asks about, looked for at most 10 s before the call
// (maxDiagnoseLag): each first answer here comes right after its own
// change, in one call that waits for a fresh answer, so a slow machine
// (the previous answer taking over 10 s, or a retry after a late one that
// made the retry no first answer) does not leave it without the error.
func TestEndedSessionsNameStartsAfresh(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	warm(t, rt.Session("warm"), "e/e.go", "c/c.go")
	ctx := context.Background()
	// firstAnswer changes c/c.go and breaks e/e.go (each with a new
	// comment, so that both are changes) and returns the other files of
	// the first answer of session name about c/c.go.
	firstAnswer := func(name, note string) []messages.FileReport {
		t.Helper()
		write(t, ws, "c/c.go", attrFiles["c/c.go"]+"\n// "+note+"\n")
		write(t, ws, "e/e.go", "package e\n\n// E stands alone.\nfunc E() int { return undefinedE }\n\n// "+note+"\n")
		reports, err := rt.Session(name).Diagnostics(ctx, []string{"c/c.go"}, agentlsp.WithTimeout(90*time.Second))
		if err != nil {
			t.Fatalf("session %s: Diagnostics(c/c.go): %v", name, err)
		}
		if r := reports[0]; r.Status != messages.StatusFresh {
			t.Fatalf("session %s: Diagnostics(c/c.go) = %s (%s), want fresh", name, r.Status, r.Detail)
		}
		return reports[1:]
	}
	if shown := firstAnswer("A", "first"); !has(shown, "e/e.go") {
		t.Fatalf("a session's first answer: other files %v, want e/e.go, broken with the change", names(shown))
	}
	if err := rt.Session("A").End(ctx); err != nil {
		t.Fatal(err)
	}
	again := firstAnswer("A", "again")
	if control := firstAnswer("B", "control"); !has(control, "e/e.go") {
		t.Fatalf("a new name's first answer: other files %v, want e/e.go, broken with the change", names(control))
	}
	if !has(again, "e/e.go") {
		t.Errorf("a new session named as an ended one: other files %v, want e/e.go, as a new name's first answer", names(again))
	}
}
