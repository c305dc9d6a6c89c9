package server_test

import (
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestATouchStandsForTheNextOnes: on a server that signals its diagnoses
// (the fake with --diagnosing, as gopls with verboseWorkDoneProgress),
// a touch that is the last thing the server was sent stands for the
// touches of other documents after it (messages.Barrier): they get no new
// version and no didChange. Anything else sent since, and a server that
// gives no signal, make a touch a touch again.
func TestATouchStandsForTheNextOnes(t *testing.T) {
	const a, b, c = "file:///work/a.fake", "file:///work/b.fake", "file:///work/c.fake"
	for _, tc := range []struct {
		name    string
		signals bool
	}{{"signals", true}, {"no signal", false}} {
		t.Run(tc.name, func(t *testing.T) {
			h := actortest.New(t)
			var args []string
			if tc.signals {
				args = append(args, "--diagnosing")
			}
			srv, record := actortest.FakeServer(t, args...)
			pid := h.Spawn(srv, t.TempDir(), nil)
			h.AwaitState(messages.StateRunning, 1, 30*time.Second)
			for _, uri := range []string{a, b, c} {
				h.Open(pid, uri, "package p\n")
			}
			h.AwaitDiagnostics(c, func(d *messages.PublishedDiagnostics) bool { return d.Version == 1 })
			touch := func(uri string) *messages.DocumentSynced {
				t.Helper()
				s := h.Ask(pid, &messages.TouchDocument{URI: uri}).(*messages.DocumentSynced)
				if s.Err != nil {
					t.Fatalf("touch %s: %v", uri, s.Err)
				}
				return s
			}
			touched := func(s *messages.DocumentSynced, version int32) {
				t.Helper()
				if !s.Changed || s.Version != version || s.Barrier != nil {
					t.Errorf("touch of %s = changed %v v%d barrier %+v, want a touch to v%d", s.URI, s.Changed, s.Version, s.Barrier, version)
				}
			}

			// The last thing sent is a change, not a touch nor an open.
			h.Change(pid, c, "package p\nvar y int\n")
			touched(touch(a), 2)
			for i := range 2 {
				s := touch(b)
				switch {
				case !tc.signals && i == 0:
					touched(s, 2)
				case !tc.signals: // nothing sent since b's own touch
					if s.Changed || s.Version != 2 || s.Barrier != nil {
						t.Errorf("second touch of b = changed %v v%d barrier %+v, want nothing new", s.Changed, s.Version, s.Barrier)
					}
				case s.Changed || s.Version != 1 || s.Barrier == nil || s.Barrier.URI != a || s.Barrier.Version != 2 || s.Barrier.SentAt.IsZero():
					t.Errorf("touch of b after a's = changed %v v%d barrier %+v, want v1 with a's touch (v2) standing for it", s.Changed, s.Version, s.Barrier)
				}
			}
			if tc.signals {
				h.Change(pid, c, "package p\nvar x int\n") // something sent since a's touch
				touched(touch(b), 2)
			}
			want := map[string]int{a: 1, b: 1, c: 2}
			if !tc.signals {
				want = map[string]int{a: 1, b: 1, c: 1}
			}
			testenv.Eventually(t, 10*time.Second, "the didChange notifications at the fake", func() bool {
				got := map[string]int{}
				for _, r := range testenv.Records(t, record) {
					if r.Method == "textDocument/didChange" {
						got[recordURI(r)]++
					}
				}
				return len(got) == len(want) && got[a] == want[a] && got[b] == want[b] && got[c] == want[c]
			})
		})
	}
}

// TestAnOpenStandsForATouch: an open that is the last thing a server that
// signals its diagnoses was sent stands for the touches of the other open
// documents, as a touch does (a check opens all its files, then asks each:
// none is touched); the document opened last needs no touch either, nothing
// having been sent since. Without the signal, the others are touched.
func TestAnOpenStandsForATouch(t *testing.T) {
	const a, b, c = "file:///work/a.fake", "file:///work/b.fake", "file:///work/c.fake"
	for _, signals := range []bool{true, false} {
		t.Run(map[bool]string{true: "signals", false: "no signal"}[signals], func(t *testing.T) {
			h := actortest.New(t)
			var args []string
			if signals {
				args = append(args, "--diagnosing")
			}
			srv, record := actortest.FakeServer(t, args...)
			pid := h.Spawn(srv, t.TempDir(), nil)
			h.AwaitState(messages.StateRunning, 1, 30*time.Second)
			h.Open(pid, a, "package p\n")
			h.AwaitDiagnostics(a, func(d *messages.PublishedDiagnostics) bool { return d.Version == 1 })
			for _, uri := range []string{b, c} {
				h.Open(pid, uri, "package p\n")
			}
			for _, uri := range []string{c, a, b} {
				s := h.Ask(pid, &messages.TouchDocument{URI: uri}).(*messages.DocumentSynced)
				switch {
				case s.Err != nil:
					t.Fatalf("touch %s: %v", uri, s.Err)
				case uri == c && (s.Changed || s.Version != 1 || s.Barrier != nil):
					t.Errorf("touch of c, opened last = changed %v v%d barrier %+v, want nothing new", s.Changed, s.Version, s.Barrier)
				case uri != c && signals && (s.Changed || s.Version != 1 || s.Barrier == nil || s.Barrier.URI != c || s.Barrier.Version != 1):
					t.Errorf("touch of %s = changed %v v%d barrier %+v, want v1 with c's open standing for it", uri, s.Changed, s.Version, s.Barrier)
				case uri == a && !signals && (!s.Changed || s.Version != 2 || s.Barrier != nil):
					t.Errorf("touch of a without the signal = changed %v v%d barrier %+v, want a touch to v2", s.Changed, s.Version, s.Barrier)
				}
			}
			want := 0
			if !signals {
				want = 2 // a's, then b's: a's touch was sent since b's open
			}
			// Every message the actor sent is on record once the fake
			// answered a request sent after them.
			h.Ask(pid, &messages.Request{ID: 1, Method: "textDocument/hover", Params: []byte(`{"textDocument":{"uri":"` + a + `"},"position":{"line":0,"character":0}}`)})
			got := 0
			for _, r := range testenv.Records(t, record) {
				if r.Method == "textDocument/didChange" {
					got++
				}
			}
			if got != want {
				t.Errorf("%d didChange at the fake, want %d", got, want)
			}
		})
	}
}
