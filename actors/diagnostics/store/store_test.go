package store_test

import (
	"fmt"
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
	changed := s.ChangedSince(base, []messages.ServerKey{srv}, func(store.Key) bool { return true })
	if len(changed) != 2 || !changed["a"] || !changed["b"] {
		t.Errorf("ChangedSince = %v, want a and b", changed)
	}
	if changed := s.ChangedSince(base, []messages.ServerKey{srv}, func(k store.Key) bool { return k != a }); len(changed) != 1 || !changed["b"] {
		t.Errorf("ChangedSince, a left out = %v, want b", changed)
	}
	if e := s.Get(a); e.Latest() != 2 {
		t.Errorf("Latest = %d, want 2", e.Latest())
	}
}

// TestChangedSinceByServer: only the servers asked about are looked at,
// and a server whose log was cut short is looked up in the store instead,
// with the same answer.
func TestChangedSinceByServer(t *testing.T) {
	s := store.New(0)
	other := messages.ServerKey{ServerID: "other", Root: "/"}
	s.Write(store.Key{Server: srv, URI: "a"}, false, pub(1, "x"))
	base := s.Seq()
	s.Write(store.Key{Server: other, URI: "o"}, false, pub(1, "x"))
	s.Write(store.Key{Server: srv, URI: "b"}, false, pub(1, "x"))
	all := func(store.Key) bool { return true }
	if got := s.ChangedSince(base, []messages.ServerKey{srv}, all); len(got) != 1 || !got["b"] {
		t.Errorf("ChangedSince(srv) = %v, want b", got)
	}
	if got := s.ChangedSince(base, []messages.ServerKey{other}, all); len(got) != 1 || !got["o"] {
		t.Errorf("ChangedSince(other) = %v, want o", got)
	}
	if got := s.ChangedSince(base, []messages.ServerKey{srv, other}, all); len(got) != 2 {
		t.Errorf("ChangedSince(both) = %v, want b and o", got)
	}
	if got := s.ChangedSince(base, nil, all); len(got) != 0 {
		t.Errorf("ChangedSince(no server) = %v, want nothing", got)
	}
	// Past the log's bound: other's early writes leave its log, and
	// what changed since base is read from the store.
	for i := range store.MaxLog + 1 {
		s.Write(store.Key{Server: other, URI: fmt.Sprintf("n%d", i%3)}, false, pub(int32(i), "x"))
	}
	if got := s.ChangedSince(base, []messages.ServerKey{other}, all); len(got) != 4 || !got["o"] || !got["n0"] {
		t.Errorf("ChangedSince(other) past the log = %v, want o, n0, n1, n2", got)
	}
	if got := s.ChangedSince(base, []messages.ServerKey{srv}, all); len(got) != 1 || !got["b"] {
		t.Errorf("ChangedSince(srv), other's log cut = %v, want b", got)
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

// TestPushBeforeAChangeIsNotMerged: a push of the pulled version that came
// before a change the pull describes (a change of another file, which
// leaves the document's version as it was: rust-analyzer's cargo check
// findings, pushed once) is not merged with that pull; one that came at
// the pull's view or after is.
func TestPushBeforeAChangeIsNotMerged(t *testing.T) {
	s := store.New(0)
	k := store.Key{Server: srv, URI: "a"}
	push := pub(1, "cargo check: old error")
	push.View = 4
	s.Write(k, false, push)
	pull := pub(1, "native")
	pull.View = 5
	s.Write(k, true, pull)
	if got := s.Get(k).Current(); len(got) != 1 || got[0].Message != "native" {
		t.Errorf("a push from view 4 with a pull asked at view 5 = %v, want the pull's alone", got)
	}
	again := pub(1, "cargo check: new error")
	again.View = 5
	s.Write(k, false, again)
	if got := s.Get(k).Current(); len(got) != 2 {
		t.Errorf("a push at the pull's view = %v, want both", got)
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

// TestServersSortedAndStable: Servers lists a document's servers sorted,
// and a list handed out stays as it was through later writes and
// evictions (it is the store's own, shared with the caller).
func TestServersSortedAndStable(t *testing.T) {
	s := store.New(10)
	keys := []messages.ServerKey{{ServerID: "b", Root: "/r"}, {ServerID: "a", Root: "/z"}, {ServerID: "a", Root: "/a"}}
	s.Write(store.Key{Server: keys[0], URI: "u"}, false, pub(1))
	s.Write(store.Key{Server: keys[1], URI: "u"}, false, pub(1))
	held := s.Servers("u")
	heldCopy := append([]messages.ServerKey(nil), held...)
	s.Write(store.Key{Server: keys[2], URI: "u"}, false, pub(1, "e"))
	s.Write(store.Key{Server: keys[2], URI: "u"}, false, pub(2, "e"))
	want := []messages.ServerKey{keys[2], keys[1], keys[0]}
	if got := s.Servers("u"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Servers(u) = %v, want %v", got, want)
	}
	for i := range 20 { // evicts the empty keys of u, oldest first
		s.Write(store.Key{Server: keys[0], URI: fmt.Sprint(i)}, false, pub(1, "e"))
	}
	if fmt.Sprint(held) != fmt.Sprint(heldCopy) {
		t.Errorf("a list Servers handed out changed to %v, want %v", held, heldCopy)
	}
	if got := s.Servers("u"); len(got) > 1 || len(got) == 1 && got[0] != keys[2] {
		t.Errorf("Servers(u) after evictions = %v, want at most [%v]", got, keys[2])
	}
}

// TestMergedOnceEachKey: Merged lists each key once, whether one server
// sent it twice or two servers sent it.
func TestMergedOnceEachKey(t *testing.T) {
	s := store.New(0)
	other := messages.ServerKey{ServerID: "t", Root: "/r"}
	s.Write(store.Key{Server: srv, URI: "one"}, false, pub(1, "a", "b"))
	s.Write(store.Key{Server: srv, URI: "twice"}, false, pub(1, "a", "b", "a"))
	s.Write(store.Key{Server: srv, URI: "two"}, false, pub(1, "a", "b"))
	s.Write(store.Key{Server: other, URI: "two"}, false, pub(1, "b", "c"))
	for uri, want := range map[string]string{"one": "a b", "twice": "a b", "two": "a b c"} {
		diags, _, _ := s.Merged(uri, s.Get)
		var got []string
		for _, d := range diags {
			got = append(got, d.Message)
		}
		if fmt.Sprint(got) != "["+want+"]" {
			t.Errorf("Merged(%s) = %v, want [%s]", uri, got, want)
		}
	}
}
