package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestPullDiagnostics: with a pull-capable server (static or dynamically
// registered) the actor pulls after open and change and publishes complete
// results for the right version; resultIds are sent back and "unchanged"
// reports keep the previous items.
func TestPullDiagnostics(t *testing.T) {
	for _, mode := range []string{"--pull", "--pull-register"} {
		t.Run(mode, func(t *testing.T) {
			h := actortest.New(t)
			srv, record := actortest.FakeServer(t, mode, "--no-push", "--refresh-on-save")
			pid := h.Spawn(srv, t.TempDir(), nil)
			h.AwaitState(messages.StateRunning, 1, 30*time.Second)
			if mode == "--pull-register" {
				testenv.Eventually(t, 10*time.Second, "dynamic registration", func() bool {
					return len(h.Status(pid).Registrations) == 1
				})
			}
			h.Open(pid, docURI, "a // ERROR: one\n")
			d := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
			if len(d.Diagnostics) != 1 || d.Diagnostics[0].Message != "one" {
				t.Errorf("pulled v1 = %+v", d.Diagnostics)
			}
			h.Change(pid, docURI, "a // ERROR: one\nb // ERROR: two\n")
			d = h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 2 })
			if len(d.Diagnostics) != 2 {
				t.Errorf("pulled v2 = %+v", d.Diagnostics)
			}
			// didSave makes the fake ask for a refresh: the re-pull sends the
			// resultId, gets "unchanged", and keeps the two items.
			h.Ask(pid, &messages.SaveDocument{URI: docURI})
			testenv.Eventually(t, 10*time.Second, "a pull with previousResultId v2", func() bool {
				for _, r := range testenv.Records(t, record) {
					var p struct{ PreviousResultID string }
					if r.Method == "textDocument/diagnostic" && json.Unmarshal(r.Params, &p) == nil && p.PreviousResultID == "v2" {
						return true
					}
				}
				return false
			})
			d = h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 2 })
			if len(d.Diagnostics) != 2 {
				t.Errorf("after unchanged report = %+v, want the 2 kept", d.Diagnostics)
			}
		})
	}
}

// TestPulledResultsSayWhenTheyWereAskedFor: every version sent is
// announced with the server's view (DocumentSent.View), and every pulled
// result with the view when its pull was asked for. With inter-file
// dependencies a change re-pulls the other open documents: their results
// are asked for at or after the change's view; the first pull of the
// other document, before the change, was not.
func TestPulledResultsSayWhenTheyWereAskedFor(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--pull", "--inter-file", "--no-push")
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	const other = "file:///work/b.fake"
	sent := func(uri string, version int32) *messages.DocumentSent {
		return h.Await("sent "+uri, 30*time.Second, func(e any) bool {
			s, ok := e.(*messages.DocumentSent)
			return ok && s.URI == uri && s.Version == version
		}).(*messages.DocumentSent)
	}
	h.Open(pid, other, "b // ERROR: b\n")
	first := h.AwaitDiagnostics(other, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
	h.Open(pid, docURI, "a\n")
	h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
	h.Change(pid, docURI, "a // ERROR: a\n")
	change := sent(docURI, 2)
	if first.View >= change.View || change.View == 0 {
		t.Errorf("first pull of %s asked for at view %d, the change sent at view %d: want it before", other, first.View, change.View)
	}
	again := h.AwaitDiagnostics(other, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.View > first.View })
	own := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 2 })
	if again.View < change.View || own.View < change.View {
		t.Errorf("after the change (view %d): %s re-pulled at view %d, %s at %d; want both at or after it",
			change.View, other, again.View, docURI, own.View)
	}
}

// TestPushesSayWhenTheyCame: a push carries the server's view when it
// came, so that a push of a version that stays (a change of another file
// leaves it as it was) is not taken with a pull asked after that change
// (store.Entry.Current).
func TestPushesSayWhenTheyCame(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t)
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	const other = "file:///work/b.fake"
	sent := func(uri string) *messages.DocumentSent {
		return h.Await("sent "+uri, 30*time.Second, func(e any) bool {
			s, ok := e.(*messages.DocumentSent)
			return ok && s.URI == uri && s.Version == 1
		}).(*messages.DocumentSent)
	}
	h.Open(pid, docURI, "a // ERROR: a\n")
	sa := sent(docURI)
	pa := h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return !d.Pulled && d.Version == 1 })
	h.Open(pid, other, "b\n")
	so := sent(other)
	po := h.AwaitDiagnostics(other, func(d *messages.PublishedDiagnostics) bool { return !d.Pulled && d.Version == 1 })
	if pa.View < sa.View || po.View < so.View {
		t.Errorf("pushes at views %d and %d, their documents sent at %d and %d: want each at or after its own", pa.View, po.View, sa.View, so.View)
	}
	if pa.View >= so.View {
		t.Errorf("the first push came at view %d, before %s was sent at %d: want a smaller view", pa.View, other, so.View)
	}
}

// TestDocumentOpenedWhileStartingIsAnnounced: a document opened while the
// server starts is announced (DocumentSent) when it is sent to the server,
// saying whether the server diagnoses open files only (OpenImporters):
// the diagnostics actor tells a file's first diagnosis by it.
func TestDocumentOpenedWhileStartingIsAnnounced(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--pull", "--no-push", "--delay", "initialize=300ms")
	srv.OpenImporters = 3
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.Open(pid, docURI, "a\n")
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	s := h.Await("sent "+docURI, 30*time.Second, func(e any) bool {
		s, ok := e.(*messages.DocumentSent)
		return ok && s.URI == docURI
	}).(*messages.DocumentSent)
	if s.Version != 1 || !s.OpenOnly || s.Closed {
		t.Errorf("announced %+v, want version 1, open files only", s)
	}
}

// TestAwaitPulledWaitsForTheFirstPull: AwaitPulled is answered once the
// documents were pulled for their current version (the router waits for
// it before an edit in memory reaches the importers it opened), at once
// for a document that is not open.
func TestAwaitPulledWaitsForTheFirstPull(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--pull", "--no-push", "--delay", "textDocument/diagnostic=1s")
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	if _, ok := h.Ask(pid, &messages.AwaitPulled{URIs: []string{"file:///work/none.fake"}}).(*messages.Pulled); !ok {
		t.Fatal("AwaitPulled of a document not open was not answered Pulled")
	}
	h.Open(pid, docURI, "a // ERROR: a\n")
	if _, err := h.Sys.Root.RequestFuture(pid, &messages.AwaitPulled{URIs: []string{docURI}}, 200*time.Millisecond).Result(); err == nil {
		t.Fatal("AwaitPulled answered while the document's pull (1 s) was out")
	}
	if _, ok := h.Ask(pid, &messages.AwaitPulled{URIs: []string{docURI}}).(*messages.Pulled); !ok {
		t.Fatal("AwaitPulled was not answered Pulled")
	}
	h.AwaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool {
		return d.Pulled && d.Version == 1 && len(d.Diagnostics) == 1
	})
}
