package pulls_test

import (
	"math/rand/v2"
	"testing"

	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

func full(msgs ...string) pulls.Report {
	r := pulls.Report{Kind: "full"}
	for _, m := range msgs {
		r.Items = append(r.Items, messages.Diagnostic{Message: m})
	}
	return r
}

func TestOneRoundAtATimeAndUnchanged(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{Identifier: "a"}, {Identifier: "b"}}
	reqs := s.Pull(pulls.Doc{URI: "u", Version: 1, View: 7}, provs)
	if len(reqs) != 2 {
		t.Fatalf("requests = %v, want one per provider", reqs)
	}
	if again := s.Pull(pulls.Doc{URI: "u", Version: 2, View: 9}, provs); again != nil {
		t.Errorf("a second round during the first = %v, want none yet", again)
	}
	pub, next := s.Done("u", 1, "a", pulls.Report{Kind: "full", ResultID: "r1", Items: full("x").Items}, provs)
	if pub != nil || next != nil {
		t.Errorf("half a round published %v, %v", pub, next)
	}
	pub, next = s.Done("u", 1, "b", full("y"), provs)
	if len(pub) != 1 || pub[0].Version != 1 || len(pub[0].Diagnostics) != 2 || pub[0].View != 7 {
		t.Errorf("round 1 published %+v, want version 1 with x and y, asked for at view 7", pub)
	}
	if len(next) != 2 || next[0].Version != 2 || next[0].PreviousResultID != "r1" {
		t.Errorf("the round asked for meanwhile = %+v, want version 2 with previousResultId r1", next)
	}
	s.Done("u", 2, "a", pulls.Report{Kind: "unchanged", ResultID: "r1"}, provs)
	pub, _ = s.Done("u", 2, "b", pulls.Report{Failed: true}, provs)
	if len(pub) != 0 {
		t.Errorf("a round with a failed pull published %+v: the old items would pass for version 2's", pub)
	}
	s.Pull(pulls.Doc{URI: "u", Version: 3, View: 12}, provs)
	s.Done("u", 3, "a", pulls.Report{Kind: "unchanged", ResultID: "r1"}, provs)
	pub, _ = s.Done("u", 3, "b", full("y"), provs)
	if len(pub) != 1 || len(pub[0].Diagnostics) != 2 || pub[0].View != 12 {
		t.Errorf("an unchanged report keeps the previous items, and says when it was asked for: %+v", pub)
	}
}

// TestChangeHoldsItsResultAndBoundsOthers: with inter-file dependencies a
// change re-pulls at most MaxOthers other documents, most recent first,
// and publishes its own result only after theirs.
func TestChangeHoldsItsResultAndBoundsOthers(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{InterFile: true}}
	var others []pulls.Doc
	for i := range pulls.MaxOthers + 10 {
		others = append(others, pulls.Doc{URI: string(rune('A' + i)), Version: 1, Seq: uint64(i)})
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	reqs := s.PullChange(pulls.Doc{URI: "changed", Version: 5, Seq: 100}, each(others), provs)
	if len(reqs) != 1+pulls.MaxOthers {
		t.Fatalf("requests = %d, want 1 + %d", len(reqs), pulls.MaxOthers)
	}
	for i, r := range reqs[1:] {
		if want := string(rune('A' + pulls.MaxOthers + 9 - i)); r.URI != want {
			t.Errorf("other re-pulled #%d = %s, want %s (the most recently changed first)", i, r.URI, want)
		}
	}
	pub, _ := s.Done("changed", 5, "", full("e"), provs)
	if len(pub) != 0 {
		t.Errorf("the changed document published before the others: %+v", pub)
	}
	for i, r := range reqs[1:] {
		pub, _ = s.Done(r.URI, 1, "", full(), provs)
		last := i == len(reqs)-2
		if last && (len(pub) != 2 || pub[1].URI != "changed") || !last && len(pub) != 1 {
			t.Fatalf("after other %d: published %+v", i, pub)
		}
	}
}

// TestForgetReleasesHeld: closing the last document a change waits for
// publishes the change's held result.
func TestForgetReleasesHeld(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{InterFile: true}}
	s.PullChange(pulls.Doc{URI: "c", Version: 2}, each([]pulls.Doc{{URI: "o", Version: 1}}), provs)
	s.Done("c", 2, "", full(), provs)
	if pub := s.Forget("o"); len(pub) != 1 || pub[0].URI != "c" {
		t.Errorf("Forget = %+v, want the held result of c", pub)
	}
}

// TestChangeWaitsForARoundInFlight: a document re-pulled by a change while
// its previous round is still out: the change's result waits for the
// document's next round, which describes the workspace after the change.
func TestChangeWaitsForARoundInFlight(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{InterFile: true}}
	s.Pull(pulls.Doc{URI: "o", Version: 1}, provs) // a round of o is out
	s.PullChange(pulls.Doc{URI: "c", Version: 2}, each([]pulls.Doc{{URI: "o", Version: 1}}), provs)
	if pub, _ := s.Done("c", 2, "", full("c"), provs); len(pub) != 0 {
		t.Fatalf("the change published before o's next round: %+v", pub)
	}
	pub, next := s.Done("o", 1, "", full("old"), provs) // the round from before the change
	if len(pub) != 1 || pub[0].URI != "o" || len(next) != 1 {
		t.Fatalf("o's old round = %+v, next %+v; want it published and another round asked", pub, next)
	}
	pub, _ = s.Done("o", 1, "", full("new"), provs) // the round after the change
	if len(pub) != 2 || pub[1].URI != "c" {
		t.Errorf("after o's next round: %+v, want o then the held change", pub)
	}
}

// each yields docs, as a server's open documents.
func each(docs []pulls.Doc) func(func(pulls.Doc)) {
	return func(yield func(pulls.Doc)) {
		for _, d := range docs {
			yield(d)
		}
	}
}

// TestNewerChangeTakesTheNextRound: a document changed twice while a round
// of it is out (the second change opening importers first): its next
// round pulls the newer version, and that result waits for the other
// documents the newer change re-pulls. It went out at once, tied to the
// older change, which had re-pulled nothing.
func TestNewerChangeTakesTheNextRound(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{InterFile: true}}
	s.Pull(pulls.Doc{URI: "m", Version: 1}, provs)                  // m's round is out
	s.PullChange(pulls.Doc{URI: "m", Version: 2}, each(nil), provs) // changed on disk
	s.Pull(pulls.Doc{URI: "imp", Version: 1}, provs)                // an importer opened
	s.PullChange(pulls.Doc{URI: "m", Version: 3}, each([]pulls.Doc{{URI: "imp", Version: 1}}), provs)
	pub, next := s.Done("m", 1, "", full(), provs)
	if len(pub) != 1 || len(next) != 1 || next[0].Version != 3 {
		t.Fatalf("m's first round: published %+v, next %+v; want it published and version 3 asked", pub, next)
	}
	if pub, _ := s.Done("m", 3, "", full(), provs); len(pub) != 0 {
		t.Fatalf("m's version 3 published before the importer's next round: %+v", pub)
	}
	pub, next = s.Done("imp", 1, "", full(), provs) // the round from the open
	if len(pub) != 1 || pub[0].URI != "imp" || len(next) != 1 {
		t.Fatalf("the importer's open round: published %+v, next %+v", pub, next)
	}
	pub, _ = s.Done("imp", 1, "", full("broken"), provs)
	if len(pub) != 2 || pub[0].URI != "imp" || pub[1].URI != "m" || pub[1].Version != 3 {
		t.Errorf("after the importer's round with m's change: %+v, want the importer, then m's version 3", pub)
	}
}

// TestTwoChangesWaitForOneRound: two changes re-pull the same document
// while a round of it is out: both wait for its next round.
func TestTwoChangesWaitForOneRound(t *testing.T) {
	s := pulls.New()
	provs := []pulls.Provider{{InterFile: true}}
	o := each([]pulls.Doc{{URI: "o", Version: 1}})
	s.Pull(pulls.Doc{URI: "o", Version: 1}, provs)
	s.PullChange(pulls.Doc{URI: "c1", Version: 2}, o, provs)
	s.PullChange(pulls.Doc{URI: "c2", Version: 2}, o, provs)
	for _, c := range []string{"c1", "c2"} {
		if pub, _ := s.Done(c, 2, "", full(), provs); len(pub) != 0 {
			t.Fatalf("%s published before o's next round: %+v", c, pub)
		}
	}
	if pub, next := s.Done("o", 1, "", full("old"), provs); len(pub) != 1 || len(next) != 1 {
		t.Fatalf("o's round from before the changes: %+v, next %+v", pub, next)
	}
	pub, _ := s.Done("o", 1, "", full("new"), provs)
	if len(pub) != 3 || pub[0].URI != "o" || pub[1].URI != "c1" || pub[2].URI != "c2" {
		t.Errorf("after o's next round: %+v, want o, c1, c2", pub)
	}
}
