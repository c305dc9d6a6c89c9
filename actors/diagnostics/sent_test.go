package diagnostics_test

import (
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
)

// TestNewTextSentMakesStoredDiagnosticsStale: once a new version of a
// document went to its server (a re-sync from disk, say), what is stored
// for the previous one is stale until the server describes the new one:
// a snapshot says so, and an answer does not show it among other files
// (one did, fresh, with an error of the text before a rewrite).
func TestNewTextSentMakesStoredDiagnosticsStale(t *testing.T) {
	h := actortest.New(t)
	p, path := onePy(t, h, diagnostics.Config{}, "--push-delay", "2s")
	uri := paths.URI(path)
	h.Sync(p.Router, "a", path, messages.SyncChange, "a # ERROR: the old text\n")
	h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return len(d.Diagnostics) == 1 })
	snapshot := func() messages.FileReport {
		res, err := h.Sys.Root.RequestFuture(p.Diag, &messages.GetDiagnostics{URIs: []string{uri}}, 10*time.Second).Result()
		if err != nil {
			t.Fatal(err)
		}
		return res.(*messages.DiagnosticsSnapshot).Files[0]
	}
	// The probe and the diagnostics actor hear of the publication each on
	// its own: the actor may take it a moment after the probe.
	for f, deadline := snapshot(), time.Now().Add(10*time.Second); f.Status != messages.StatusFresh; f = snapshot() {
		if time.Now().After(deadline) {
			t.Fatalf("before the new text: %s (%s), want fresh", f.Status, f.Detail)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.Sync(p.Router, "a", path, messages.SyncChange, "a = 1\n") // diagnosed 2 s later
	if f := snapshot(); f.Status != messages.StatusStale {
		t.Errorf("right after the new text went out: %s with %d diagnostics, want stale", f.Status, len(f.Diagnostics))
	}
}
