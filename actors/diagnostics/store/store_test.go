package store_test

import (
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

var srv = messages.ServerKey{ServerID: "s", Root: "/r"}

func pub(v int32, msgs ...string) *store.Published {
	p := &store.Published{Version: v, HasVersion: true, At: time.Unix(0, 0)}
	for _, m := range msgs {
		p.Diags = append(p.Diags, messages.Diagnostic{Message: m, Severity: messages.SeverityError})
	}
	return p
}

func TestBaselineAndChangedSince(t *testing.T) {
	s := store.New(0)
	a, b := store.Key{Server: srv, URI: "a"}, store.Key{Server: srv, URI: "b"}
	s.Write(a, false, pub(1, "old"))
	base := s.Seq()
	s.Write(a, false, pub(2, "new"))
	s.Write(b, true, pub(1, "cascade"))
	if got := s.At(a, base).Current(); len(got) != 1 || got[0].Message != "old" {
		t.Errorf("At(baseline) = %v, want old", got)
	}
	if got := s.At(b, base); !got.Empty() {
		t.Errorf("b at baseline = %+v, want nothing (written after)", got)
	}
	changed := s.ChangedSince(base, func(store.Key) bool { return true })
	if len(changed) != 2 || !changed["a"] || !changed["b"] {
		t.Errorf("ChangedSince = %v, want a and b", changed)
	}
	if changed := s.ChangedSince(base, func(k store.Key) bool { return k != a }); len(changed) != 1 || !changed["b"] {
		t.Errorf("ChangedSince, a left out = %v, want b", changed)
	}
	if e := s.Get(a); e.Latest() != 2 {
		t.Errorf("Latest = %d, want 2", e.Latest())
	}
}

func TestPushAndPullOfOneVersionMerge(t *testing.T) {
	s := store.New(0)
	k := store.Key{Server: srv, URI: "a"}
	s.Write(k, true, pub(3, "x"))
	s.Write(k, false, pub(3, "x", "y"))
	if got := s.Get(k).Current(); len(got) != 2 {
		t.Errorf("push and pull of version 3 = %v, want x and y once each", got)
	}
	s.Write(k, false, pub(2, "stale"))
	if got := s.Get(k).Current(); len(got) != 1 || got[0].Message != "x" {
		t.Errorf("a push for an older version than the pull = %v, want the pull's", got)
	}
}

// TestBounded: the store forgets keys beyond its bound, those without
// diagnostics first.
func TestBounded(t *testing.T) {
	s := store.New(100)
	keep := store.Key{Server: srv, URI: "errors"}
	s.Write(keep, false, pub(1, "e"))
	for i := range 1000 {
		s.Write(store.Key{Server: srv, URI: string(rune(0x4e00 + i))}, false, pub(1))
	}
	if s.Len() > 100 {
		t.Errorf("Len = %d, want at most 100", s.Len())
	}
	if s.Get(keep).Empty() {
		t.Errorf("the one key with diagnostics was forgotten before empty ones")
	}
}
