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

// TestContentModifiedWhileIndexingWaitsForTheWork: with IndexWait, a
// request answered "content modified" while the server works (as
// rust-analyzer answers while it loads its workspace) is sent again when
// the work ends, not retried within it until its retries run out; without
// IndexWait, it is retried with backoff and fails while the work lasts.
func TestContentModifiedWhileIndexingWaitsForTheWork(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait time.Duration
		ok   bool
	}{
		{"with IndexWait: sent again when the work ends", 8 * time.Second, true}, // within the harness's 10 s deadline
		{"without: retried, and refused while the work lasts", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := actortest.New(t)
			// 6 s of work outlast the three retries (0.5, 1 and 2 s apart).
			srv, record := actortest.FakeServer(t, "--progress", "6s", "--modified-while-progress", "textDocument/hover")
			srv.IndexWait = config.Duration(tc.wait)
			pid := h.Spawn(srv, t.TempDir(), nil)
			h.Await("progress begin", 30*time.Second, func(m any) bool {
				p, ok := m.(*messages.Progress)
				return ok && p.Kind == "begin"
			})
			resp := h.Request(pid, "textDocument/hover", map[string]any{}, 0)
			sent := count(testenv.Methods(testenv.Records(t, record)), "textDocument/hover")
			if !tc.ok {
				if resp.Err == nil || !strings.Contains(resp.Err.Error(), "content modified") {
					t.Errorf("hover = %s, %v, want the server's content modified", resp.Result, resp.Err)
				}
				return
			}
			if resp.Err != nil || !strings.Contains(string(resp.Result), "fake hover") || resp.Indexing {
				t.Fatalf("hover = %s, %v (indexing %v), want the fake's hover, not marked", resp.Result, resp.Err, resp.Indexing)
			}
			if sent != 2 {
				t.Errorf("hover sent %d times, want 2: once during the work, once after", sent)
			}
		})
	}
}
