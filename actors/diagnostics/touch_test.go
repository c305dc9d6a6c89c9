package diagnostics_test

import (
	"slices"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestTouchOfAnotherFileKeepsWhatTheEditBroke: another session's
// diagnostics call about b gives b a new version of the same text (a
// touch) while an edit of a waits. What the server published for b's
// text once the edit's change was out still describes b: the edit's
// answer names b's new error (one left b out while another agent kept
// asking about it). A new text of b since is another matter: what is
// stored describes a text b no longer has, and b is left out.
func TestTouchOfAnotherFileKeepsWhatTheEditBroke(t *testing.T) {
	const bURI = "file:///r/b.go"
	publishB := func(version int32, msgs ...string) *messages.PublishedDiagnostics {
		p := publish(version, msgs...)
		p.URI = bURI
		return p
	}
	sent := func(uri string, version int32, view uint64, touch bool) *messages.DocumentSent {
		return &messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: uri,
			Version: version, View: view, Touch: touch}
	}
	for _, tc := range []struct {
		name  string
		touch bool
		want  bool // b among the edit's files
	}{
		{"touch", true, true},
		{"new text", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClocked(t)
			c.send(sent(fakeURI, 1, 1, false))
			c.send(sent(bURI, 1, 2, false))
			c.send(publish(1))
			c.send(publishB(1))
			c.send(&messages.EditStarted{EditID: 1, Session: "A", URI: fakeURI})
			c.send(sent(fakeURI, 2, 3, false))
			c.await(&messages.AwaitEdit{EditID: 1, Session: "A", URI: fakeURI,
				Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
				WaitOptions: messages.WaitOptions{Settle: 100 * time.Millisecond, Timeout: time.Hour}})
			c.send(publishB(1, "not enough arguments in call to a.F")) // the edit broke b
			c.send(sent(bURI, 2, 4, tc.touch))                         // then B asks about b
			c.send(publish(2))
			testenv.Eventually(t, 10*time.Second, "settle timer", func() bool { return c.clock.Pending() >= 2 })
			c.clock.Advance(time.Second)
			testenv.Eventually(t, 10*time.Second, "edit released", c.released)
			r := <-c.results
			var b *messages.FileReport
			if i := slices.IndexFunc(r.Files, func(f messages.FileReport) bool { return f.URI == bURI }); i >= 0 {
				b = &r.Files[i]
			}
			switch {
			case tc.want && (b == nil || len(b.Diagnostics) != 1):
				t.Errorf("edit's files %v, meanwhile %d: want b with its new error", fileURIs(r.Files...), len(r.Meanwhile))
			case !tc.want && b != nil:
				t.Errorf("b reported with %v though its text changed since", actortest.MessagesOf(*b))
			}
		})
	}
}

// fileURIs is the URIs of fs, in order.
func fileURIs(fs ...messages.FileReport) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.URI)
	}
	return out
}
