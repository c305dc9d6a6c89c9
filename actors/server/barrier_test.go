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
			want := map[string]int{a: 1, b: 1, c: 1}
			if !tc.signals {
				want = map[string]int{a: 1, b: 1}
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
