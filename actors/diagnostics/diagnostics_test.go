package diagnostics_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
)

// onePy is a workspace (the monorepo) and the path of its Python file,
// served by one fake server with flags.
func onePy(t *testing.T, h *actortest.Harness, cfg diagnostics.Config, flags ...string) (*actortest.Pipeline, string) {
	ws := actortest.Monorepo(t)
	reg := config.RegistryOf(actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil, flags...))
	return h.Pipeline(ws, reg, cfg), filepath.Join(ws, "py", "pkg", "app.py")
}

func TestEditWaitsForBothPhases(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--phased", "100ms")
	// A settle window far longer than the gap between the phases: the test
	// holds on a loaded machine too.
	res := p.Edit("a", path, "x = ( # SYNTAX: unclosed paren\ny # ERROR: undefined y\n",
		func(r *messages.AwaitEdit) { r.Settle = 2 * time.Second })
	if res.Status != messages.StatusFresh {
		t.Errorf("status = %s (%s), want fresh", res.Status, res.Files[0].Detail)
	}
	if got, want := actortest.MessagesOf(res.Files[0]), []string{"unclosed paren", "undefined y"}; !cmp.Equal(got, want) {
		t.Errorf("diagnostics = %v, want both phases %v", got, want)
	}
}

func TestOlderVersionNeverSatisfiesNewerEdit(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--push-delay", "300ms")
	// Version 1 is synced without waiting; its diagnostics arrive late,
	// while the edit to version 2 waits.
	h.Sync(p.Router, "a", path, messages.SyncChange, "a # ERROR: from version one\n")
	res := p.Edit("a", path, "b # ERROR: from version two\n", nil)
	if got := actortest.MessagesOf(res.Files[0]); !cmp.Equal(got, []string{"from version two"}) || res.Status != messages.StatusFresh {
		t.Errorf("edit to v2 = %s %v, want fresh [from version two]", res.Status, got)
	}
}

func TestServerWithoutVersionsByArrival(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--no-version")
	p.Edit("a", path, "a # ERROR: first\n", nil)
	res := p.Edit("a", path, "a # ERROR: first\nb # ERROR: second\n", nil)
	if got := actortest.MessagesOf(res.Files[0]); !cmp.Equal(got, []string{"second"}) || res.Status != messages.StatusFresh {
		t.Errorf("edit = %s %v, want fresh [second]", res.Status, got)
	}
}

func TestPullServerNeedsNoSettle(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--pull", "--no-push")
	slowSettle := func(r *messages.AwaitEdit) { r.Settle, r.Timeout = 30*time.Second, time.Minute }
	res := p.Edit("a", path, "a # ERROR: pulled\n", slowSettle)
	if got := actortest.MessagesOf(res.Files[0]); !cmp.Equal(got, []string{"pulled"}) || res.Status != messages.StatusFresh {
		t.Errorf("edit = %s %v", res.Status, got)
	}
	// A 30 s settle window was not waited for: the pull result is complete.
	if res.Elapsed > 15*time.Second {
		t.Errorf("released after %v: the settle window was applied to a pull", res.Elapsed)
	}
}

func TestTimeoutCarriesPartialResults(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	reg := config.RegistryOf(
		actortest.FakeDef(t, "fake-go", []string{".go"}, []string{"go.mod"}, nil),
		actortest.FakeDef(t, "fake-lint", []string{".go"}, nil, nil, "--no-push"),
	)
	p := h.Pipeline(ws, reg, diagnostics.Config{})
	a := filepath.Join(ws, "svc-a", "a.go")
	h.Sync(p.Router, "a", a, messages.SyncChange, "package svca\n") // both servers start...
	for _, id := range []string{"fake-go", "fake-lint"} {           // ...and run before the edit
		h.Await(id+" running", time.Minute, func(e any) bool {
			s, ok := e.(*messages.StateChanged)
			return ok && s.ServerID == id && s.State == messages.StateRunning
		})
	}
	res := p.Edit("a", a, "package svca // ERROR: from fake-go\n",
		func(r *messages.AwaitEdit) { r.Timeout = 3 * time.Second })
	f := res.Files[0]
	if res.Status != messages.StatusTimeout || !cmp.Equal(actortest.MessagesOf(f), []string{"from fake-go"}) {
		t.Errorf("edit = %s %v, want timeout with fake-go's diagnostic", res.Status, actortest.MessagesOf(f))
	}
	if !strings.Contains(f.Detail, "fake-lint: timed out") {
		t.Errorf("detail = %q, want fake-lint named", f.Detail)
	}
}

func TestNotReadyWhileIndexing(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--progress", "1h", "--no-push")
	h.Sync(p.Router, "a", path, messages.SyncChange, "a\n") // starts the server
	h.Await("indexing progress", 10*time.Second, func(e any) bool {
		pr, ok := e.(*messages.Progress)
		return ok && pr.Active
	})
	res := p.Edit("a", path, "b\n", func(r *messages.AwaitEdit) { r.Timeout = 300 * time.Millisecond })
	if res.Status != messages.StatusNotReady {
		t.Errorf("status = %s (%s), want not_ready", res.Status, res.Files[0].Detail)
	}
}

func TestDeltaExcludesPreexisting(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{})
	p.Edit("a", path, "a # ERROR: old\n", nil)
	text := "a # ERROR: old\nb # ERROR: new\nc # WARN: a warning\n"
	res := p.Edit("a", path, text, nil)
	if got := actortest.MessagesOf(res.Files[0]); !cmp.Equal(got, []string{"new"}) {
		t.Errorf("delta = %v, want [new]", got)
	}
	res = p.Edit("a", path, text+"\n", func(r *messages.AwaitEdit) { r.All, r.MinSeverity = true, messages.SeverityWarning })
	if got := actortest.MessagesOf(res.Files[0]); !cmp.Equal(got, []string{"old", "new", "a warning"}) {
		t.Errorf("all = %v, want [old new a warning]", got)
	}
	res = p.Edit("a", path, "fixed\n", nil)
	if len(res.Files[0].Diagnostics) != 0 || res.Status != messages.StatusFresh {
		t.Errorf("after the fix = %s %v, want fresh and clean", res.Status, actortest.MessagesOf(res.Files[0]))
	}
}

func TestCapsAndOverflowCounts(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{})
	var b strings.Builder
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "x%02d # ERROR: e%02d\n", i, i)
	}
	res := p.Edit("a", path, b.String(), nil)
	f := res.Files[0]
	if len(f.Diagnostics) != 20 || f.More != 5 || f.Diagnostics[0].Message != "e00" || f.Diagnostics[19].Message != "e19" {
		t.Errorf("edited file = %d shown (%v...) + %d more, want 20 + 5", len(f.Diagnostics), actortest.MessagesOf(f)[:1], f.More)
	}
}

func TestFloodStaysWithinCaps(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--flood", "100000")
	res := p.Edit("a", path, "flood\n", func(r *messages.AwaitEdit) { r.Timeout = time.Minute })
	f := res.Files[0]
	if len(f.Diagnostics) != 20 || f.More != 99980 {
		t.Errorf("flood: %d shown + %d more, want 20 + 99980", len(f.Diagnostics), f.More)
	}
}

func TestSessionsDedupIndependently(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{BatchDelay: 20 * time.Millisecond})
	subA, subB := p.Subscribe("A"), p.Subscribe("B")
	h.Sync(p.Router, "A", path, messages.SyncChange, "a # ERROR: one\n")
	for _, s := range []*actortest.Subscriber{subA, subB} {
		b := s.Next(t, 1)
		if len(b.Files) != 1 || !cmp.Equal(actortest.MessagesOf(b.Files[0]), []string{"one"}) {
			t.Errorf("first batch = %+v", b)
		}
	}
	h.Sys.Root.Send(p.Diag, &messages.BatchAck{Session: "A"})
	h.Sys.Root.Send(p.Diag, &messages.BatchAck{Session: "B"})
	// Republished unchanged: nothing new to either session. Then a new
	// error: each session gets only that one.
	h.Sync(p.Router, "A", path, messages.SyncChange, "a # ERROR: one\n\n")
	h.Sync(p.Router, "A", path, messages.SyncChange, "a # ERROR: one\n\nb # ERROR: two\n")
	for name, s := range map[string]*actortest.Subscriber{"A": subA, "B": subB} {
		b := s.Next(t, 2)
		if len(b.Files) != 1 || !cmp.Equal(actortest.MessagesOf(b.Files[0]), []string{"two"}) {
			t.Errorf("session %s second batch = %v, want only [two]", name, b.Files)
		}
	}
}

func TestPassiveBatchCapsAndSlowSubscriber(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	reg := config.RegistryOf(actortest.FakeDef(t, "fake-go", []string{".go"}, []string{"go.mod"}, nil))
	p := h.Pipeline(ws, reg, diagnostics.Config{BatchDelay: 20 * time.Millisecond})
	sub := p.Subscribe("S")
	files := []string{"svc-a/a.go", "svc-a/b.go", "svc-a/c.go", "svc-a/d.go"}
	for i, f := range files {
		var b strings.Builder
		for j := 0; j < 12; j++ {
			fmt.Fprintf(&b, "x // ERROR: f%d-%02d\n", i, j)
		}
		full := filepath.Join(ws, f)
		writeFile(t, full, "package svca\n")
		h.Sync(p.Router, "S", full, messages.SyncChange, b.String())
	}
	// The subscriber does not ack: however much changes, it has one batch.
	first := sub.Next(t, 1)
	shown, more := 0, 0
	for _, f := range first.Files {
		if len(f.Diagnostics) > 10 {
			t.Errorf("%s: %d diagnostics in one file, cap is 10", f.URI, len(f.Diagnostics))
		}
		shown += len(f.Diagnostics)
		more += f.More
	}
	if shown > 30 {
		t.Errorf("batch shows %d diagnostics, cap is 30", shown)
	}
	if sub.Count() != 1 {
		t.Errorf("%d batches sent without an ack, want 1", sub.Count())
	}
	// After acks, everything is eventually delivered exactly once.
	total := shown
	for n := 2; total < 48; n++ {
		h.Sys.Root.Send(p.Diag, &messages.BatchAck{Session: "S"})
		for _, f := range sub.Next(t, n).Files {
			total += len(f.Diagnostics)
		}
	}
	if total != 48 {
		t.Errorf("delivered %d diagnostics in all, want 48 exactly once", total)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentEditsReportOnlyTheirOwn: two agents edit two files of one
// server at the same time; neither answer names the other's file as one
// its edit broke.
func TestConcurrentEditsReportOnlyTheirOwn(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	reg := config.RegistryOf(actortest.FakeDef(t, "fake-go", []string{".go"}, []string{"go.mod"}, nil, "--push-delay", "50ms"))
	p := h.Pipeline(ws, reg, diagnostics.Config{})
	files := []string{filepath.Join(ws, "svc-a", "a.go"), filepath.Join(ws, "svc-a", "b.go")}
	writeFile(t, files[1], "package svca\n")
	for round := 0; round < 5; round++ {
		results := make([]*messages.EditResult, 2)
		done := make(chan int, 2)
		for i := range files {
			go func() { // joined below
				results[i] = p.Edit(fmt.Sprint("agent", i), files[i], fmt.Sprintf("x // ERROR: round %d file %d\n", round, i), nil)
				done <- i
			}()
		}
		<-done
		<-done
		for i, res := range results {
			if len(res.Files) != 1 || res.Files[0].URI != paths.URI(files[i]) {
				t.Errorf("round %d, agent %d: files %+v, want only its own", round, i, res.Files)
			}
		}
	}
}
