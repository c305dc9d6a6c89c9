package edits_test

import (
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

var (
	t0     = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s1, s2 = messages.ServerKey{ServerID: "a", Root: "/"}, messages.ServerKey{ServerID: "b", Root: "/"}
	settle = 150 * time.Millisecond
)

func await(tr *edits.Tracker, id uint64, uri string, servers ...messages.ServerKey) *edits.Edit {
	m := &messages.AwaitEdit{EditID: id, URI: uri}
	for _, s := range servers {
		m.Servers = append(m.Servers, messages.ServerVersion{ServerKey: s, Version: 2})
	}
	return tr.Await(m, nil, 0, t0, settle)
}

func TestCheckVerdicts(t *testing.T) {
	type answer struct{ done, pulled bool }
	tests := []struct {
		name    string
		answers map[string]answer
		want    edits.Verdict
	}{
		{"nobody answered", map[string]answer{}, edits.Pending},
		{"one of two", map[string]answer{"a": {true, true}}, edits.Pending},
		{"all pulls", map[string]answer{"a": {true, true}, "b": {true, true}}, edits.Release},
		{"a push", map[string]answer{"a": {true, true}, "b": {true, false}}, edits.SettleStart},
	}
	for _, tt := range tests {
		tr := edits.New()
		e := await(tr, 1, "u", s1, s2)
		got := tr.Check(e, func(w *edits.Wait) (bool, bool) {
			a := tt.answers[w.ServerID]
			return a.done, a.pulled
		}, t0)
		if got != tt.want {
			t.Errorf("%s: Check = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSettleWindowExtendsAtMostThreeTimes: pushes during the window extend
// it, never past three windows after every server was done.
func TestSettleWindowExtendsAtMostThreeTimes(t *testing.T) {
	tr := edits.New()
	e := await(tr, 1, "u", s1)
	if v := tr.Check(e, func(*edits.Wait) (bool, bool) { return true, false }, t0); v != edits.SettleStart {
		t.Fatalf("Check = %v", v)
	}
	now := t0
	for i := 0; i < 10; i++ {
		now = now.Add(100 * time.Millisecond)
		tr.Pushed(e, s1, "u", now)
	}
	if left := e.SettleLeft(t0.Add(3 * settle)); left > 0 {
		t.Errorf("window still %v open three windows after the start", left)
	}
	if left := e.SettleLeft(t0.Add(2 * settle)); left <= 0 {
		t.Errorf("window closed at two windows despite pushes")
	}
}

// TestOtherAgentsPushesDoNotExtend: a push for a document another edit
// touched is not a cascade of this one.
func TestOtherAgentsPushesDoNotExtend(t *testing.T) {
	tr := edits.New()
	e := await(tr, 1, "mine", s1)
	tr.Start(2, "other", "theirs", 1, t0) // another agent's edit, started after
	tr.Check(e, func(*edits.Wait) (bool, bool) { return true, false }, t0)
	tr.Pushed(e, s1, "theirs", t0.Add(100*time.Millisecond))
	if left := e.SettleLeft(t0.Add(settle)); left > 0 {
		t.Errorf("another agent's document extended the window by %v", left)
	}
	tr.Pushed(e, s1, "importer", t0.Add(100*time.Millisecond))
	if left := e.SettleLeft(t0.Add(settle)); left <= 0 {
		t.Errorf("a cascade into an untouched document did not extend the window")
	}
}

func TestBoundAndForget(t *testing.T) {
	tr := edits.New()
	for id := uint64(1); id <= edits.MaxPending; id++ {
		if _, ok := tr.Start(id, "s", "u", 0, t0); !ok {
			t.Fatalf("Start %d refused below the bound", id)
		}
	}
	if _, ok := tr.Start(0, "s", "u", 0, t0); ok {
		t.Errorf("Start beyond MaxPending accepted")
	}
	if _, ok := tr.Forget(1); !ok || tr.Len() != edits.MaxPending-1 {
		t.Errorf("Forget of a started edit failed")
	}
	e := await(tr, 2, "u", s1)
	if _, ok := tr.Forget(e.ID); ok {
		t.Errorf("Forget of a waiting edit succeeded")
	}
}

// TestEditedElsewhereFollowsHeldEdits: a document counts as edited
// elsewhere while another edit of it is held (whatever its start), not for
// the edit itself, and after the other is done only if it ended after e
// started.
func TestEditedElsewhereFollowsHeldEdits(t *testing.T) {
	tr := edits.New()
	e, _ := tr.Start(1, "me", "u", 5, t0)
	if tr.EditedElsewhere(e, "u") || tr.EditedElsewhere(e, "v") {
		t.Fatalf("edited elsewhere with no other edit")
	}
	o, _ := tr.Start(2, "other", "v", 3, t0) // touched v at seq 3, before e's baseline
	if !tr.EditedElsewhere(e, "v") {
		t.Errorf("v held by another edit: not edited elsewhere")
	}
	o2, _ := tr.Start(3, "other", "u", 4, t0)
	if !tr.EditedElsewhere(e, "u") {
		t.Errorf("u held by another edit too: not edited elsewhere")
	}
	tr.Cancel(o2, t0)
	if tr.EditedElsewhere(e, "u") {
		t.Errorf("u edited elsewhere after the other edit of it was dropped (and it touched u before e's baseline)")
	}
	tr.Done(o, 9, t0) // ended at seq 9, after e's baseline
	if !tr.EditedElsewhere(e, "v") {
		t.Errorf("v's edit ended after e started: not edited elsewhere")
	}
	if _, ok := tr.Forget(1); !ok || tr.Len() != 0 {
		t.Errorf("Forget: %d held", tr.Len())
	}
}

// TestEachOfVisitsTheDocumentsEdits: EachOf calls f for the edits of one
// document only, each once, while f releases them, and follows edits held
// and dropped.
func TestEachOfVisitsTheDocumentsEdits(t *testing.T) {
	tr := edits.New()
	for id, uri := range map[uint64]string{1: "u", 2: "v", 3: "u", 4: "u", 5: "w"} {
		tr.Start(id, "s", uri, 0, t0)
	}
	seen := func(uri string, f func(*edits.Edit)) map[uint64]int {
		got := map[uint64]int{}
		tr.EachOf(uri, func(e *edits.Edit) {
			if e.URI != uri {
				t.Errorf("EachOf(%q) visited edit %d of %q", uri, e.ID, e.URI)
			}
			got[e.ID]++
			f(e)
		})
		return got
	}
	if got := seen("u", func(*edits.Edit) {}); len(got) != 3 || got[1] != 1 || got[3] != 1 || got[4] != 1 {
		t.Errorf("EachOf(u) visited %v, want edits 1, 3 and 4 once each", got)
	}
	// Releasing each edit as it is visited: every one is still visited once.
	if got := seen("u", func(e *edits.Edit) { tr.Done(e, 1, t0) }); len(got) != 3 {
		t.Errorf("EachOf(u), releasing each: visited %v, want all three once", got)
	}
	if got := seen("u", func(*edits.Edit) {}); len(got) != 0 || tr.Len() != 2 {
		t.Errorf("after releasing u's edits: EachOf(u) visited %v with %d held, want none and 2 held", got, tr.Len())
	}
	if got := seen("x", func(*edits.Edit) {}); len(got) != 0 {
		t.Errorf("EachOf(x) of a document never edited visited %v", got)
	}
	tr.Start(6, "s", "v", 0, t0)
	if got := seen("v", func(*edits.Edit) {}); len(got) != 2 || got[2] != 1 || got[6] != 1 {
		t.Errorf("EachOf(v) visited %v, want edits 2 and 6", got)
	}
}
