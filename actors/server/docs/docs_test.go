package docs_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/agentlsp/agentlsp/textpos"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

func TestStoreVersionsAndSeq(t *testing.T) {
	s := docs.New()
	const u = "file:///w/a.go"
	type step struct {
		op          string
		text        string
		wantVersion int32
		wantChanged bool
		wantOpened  bool
	}
	steps := []step{
		{"open", "a", 1, true, true},
		{"open", "a", 1, false, false}, // same text: nothing sent
		{"change", "b", 2, true, false},
		{"touch", "", 2, false, false}, // nothing changed since version 2
		{"other", "", 2, false, false}, // another document changes...
		{"touch", "", 3, true, false},  // ...so a touch makes version 3
		{"close", "", 3, true, false},
		{"open", "c", 4, true, true}, // a re-open continues the sequence
	}
	for i, st := range steps {
		var r docs.Result
		var err error
		switch st.op {
		case "open":
			r = s.Open(u, "go", st.text)
		case "change":
			r, err = s.Change(u, st.text)
		case "touch":
			r, err = s.Touch(u)
		case "other":
			s.Open("file:///w/b.go", "go", "x")
			continue
		case "close":
			r.Doc, err = s.Close(u)
			r.Changed = true
		}
		if err != nil || r.Doc.Version != st.wantVersion || r.Changed != st.wantChanged || r.Opened != st.wantOpened {
			t.Fatalf("step %d %s: version %d changed %v opened %v err %v; want %d %v %v",
				i, st.op, r.Doc.Version, r.Changed, r.Opened, err, st.wantVersion, st.wantChanged, st.wantOpened)
		}
	}
	if _, err := s.Change("file:///w/none.go", "x"); !errors.Is(err, docs.ErrNotOpen) {
		t.Errorf("Change of a document never opened = %v", err)
	}
	if got := len(s.OpenDocuments()); got != 2 || s.OpenCount() != 2 {
		t.Errorf("open documents = %d, OpenCount = %d, want 2 and 2", got, s.OpenCount())
	}
	if _, err := s.Close("file:///w/b.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close("file:///w/b.go"); !errors.Is(err, docs.ErrNotOpen) || s.OpenCount() != 1 {
		t.Errorf("closing twice: %v, OpenCount = %d; want ErrNotOpen and 1", err, s.OpenCount())
	}
}

// TestDidChangeIncrementalCR: the incremental edit of a file whose lines
// end in a lone "\r" lands where it should (the old line counting took
// only "\n" as a line end).
func TestDidChangeIncrementalCR(t *testing.T) {
	s := docs.New()
	old := "line one\rline two\rline three\r"
	s.Open("file:///w/a.txt", "text", old)
	r, _ := s.Change("file:///w/a.txt", "line one\rline 2\rline three\r")
	raw, _ := json.Marshal(docs.DidChange(r.Doc, r.Old, docs.Sync{Kind: 2, Encoding: textpos.UTF16}))
	want := `"range":{"start":{"line":1,"character":5},"end":{"line":1,"character":8}},"text":"2"`
	if !strings.Contains(string(raw), want) {
		t.Errorf("didChange = %s, want %s", raw, want)
	}
	full, _ := json.Marshal(docs.DidChange(r.Doc, r.Old, docs.Sync{Kind: 1}))
	if !strings.Contains(string(full), `"contentChanges":[{"text":"line one\rline 2\rline three\r"}]`) {
		t.Errorf("full didChange = %s", full)
	}
}
