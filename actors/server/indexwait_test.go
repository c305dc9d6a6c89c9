package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestAnswerWhileIndexingAskedAgain: with IndexWait, a request answered
// while the server reports work in progress is sent once more when the
// work ends, and that answer goes out, not marked incomplete; work that
// outlasts IndexWait lets the first answer go, marked; without IndexWait
// the first answer goes at once, marked. A request whose answer comes
// after work that began and ended while it was in flight is asked again
// at once.
func TestAnswerWhileIndexingAskedAgain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		progress time.Duration
		wait     time.Duration
		sent     int
		indexing bool
		atLeast  time.Duration // the answer waited for the work (or the wait) to end
		delay    time.Duration // the server's time for a hover
	}{
		{"asked again when the work ends", 2 * time.Second, 5 * time.Second, 2, false, 200 * time.Millisecond, 0},
		{"the work outlasts the wait", time.Hour, 500 * time.Millisecond, 1, true, 400 * time.Millisecond, 0},
		{"no wait", time.Hour, 0, 1, true, 0, 0},
		{"work began and ended in flight", 300 * time.Millisecond, 5 * time.Second, 2, false, 2 * time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := actortest.New(t)
			srv, record := actortest.FakeServer(t, "--progress", tc.progress.String(), "--delay", "textDocument/hover="+tc.delay.String())
			srv.IndexWait = config.Duration(tc.wait)
			pid := h.Spawn(srv, t.TempDir(), nil)
			if tc.delay == 0 { // else asked at once: the work begins and ends while the hover is in flight
				h.Await("progress begin", 30*time.Second, func(m any) bool {
					p, ok := m.(*messages.Progress)
					return ok && p.Kind == "begin"
				})
			}
			start := time.Now()
			resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
			took := time.Since(start)
			if resp.Err != nil || !strings.Contains(string(resp.Result), "fake hover") {
				t.Fatalf("hover = %s, %v", resp.Result, resp.Err)
			}
			if resp.Indexing != tc.indexing {
				t.Errorf("answer marked indexing %v, want %v", resp.Indexing, tc.indexing)
			}
			if took < tc.atLeast {
				t.Errorf("answered after %v, want at least %v (held until the work or the wait ended)", took, tc.atLeast)
			}
			if n := count(testenv.Methods(testenv.Records(t, record)), "textDocument/hover"); n != tc.sent {
				t.Errorf("hover sent %d times, want %d", n, tc.sent)
			}
		})
	}
}
