package diagnostics_test

import (
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// TestClosedDocumentDescribesTheDisk: once a document is closed on its
// server, what the server publishes without a version (about the file on
// disk) is current, though the document had a higher version while open,
// once the server has shown that it diagnoses closed files (errors in a
// closed one; an empty push may only clear a closed file's diagnostics);
// until then, what it said of the open text is not.
func TestClosedDocumentDescribesTheDisk(t *testing.T) {
	c := newClocked(t)
	status := func() messages.FileReport { return c.snapshot() }
	sent := func(v int32, closed bool) {
		c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI, Version: v, Closed: closed})
	}
	sent(3, false)
	c.send(publish(3, "in memory")) // versioned: the server versions its pushes
	if f := status(); f.Status != messages.StatusFresh || len(f.Diagnostics) != 1 {
		t.Fatalf("open at version 3: %s %v, want fresh with its error", f.Status, f.Diagnostics)
	}
	sent(3, true)
	if f := status(); f.Status != messages.StatusStale {
		t.Errorf("closed, nothing published since: %s (%s), want stale", f.Status, f.Detail)
	}
	unversioned := func(msgs ...string) {
		p := publish(0, msgs...)
		p.HasVersion = false
		c.send(p)
	}
	unversioned() // a clear: the server may diagnose open files only
	if f := status(); f.Status != messages.StatusStale {
		t.Errorf("closed, then cleared: %s (%s), want stale (the server may not diagnose closed files)", f.Status, f.Detail)
	}
	unversioned("on disk") // the server diagnoses closed files
	if f := status(); f.Status != messages.StatusFresh || len(f.Diagnostics) != 1 || f.Diagnostics[0].Message != "on disk" {
		t.Errorf("closed, then published with an error: %s (%s) %v, want fresh with the error on disk", f.Status, f.Detail, f.Diagnostics)
	}
	sent(3, false)
	sent(3, true)
	unversioned() // now an empty push of a closed file says it is clean
	if f := status(); f.Status != messages.StatusFresh || len(f.Diagnostics) != 0 {
		t.Errorf("opened, closed, then published empty by a server that diagnoses closed files: %s (%s) %v, want fresh and clean",
			f.Status, f.Detail, f.Diagnostics)
	}
	sent(4, false) // opened again: version 4 is what counts
	if f := status(); f.Status != messages.StatusStale {
		t.Errorf("opened again at version 4, nothing published since: %s (%s), want stale", f.Status, f.Detail)
	}
	c.send(publish(4))
	if f := status(); f.Status != messages.StatusFresh {
		t.Errorf("version 4 published: %s (%s), want fresh", f.Status, f.Detail)
	}
}

// TestAPulledServersPushDoesNotMakeItCurrent: a file's stored diagnostics
// from a server that is pulled are current once its pull describes the
// version; a push of the version (rust-analyzer's cargo check) is partial
// and does not make them so, as it does not answer an edit.
func TestAPulledServersPushDoesNotMakeItCurrent(t *testing.T) {
	c := newClocked(t)
	status := func() messages.FileReport { return c.snapshot() }
	sent := func(v int32) {
		c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI, Version: v, Pulls: true})
	}
	pull := func(v int32, msgs ...string) {
		p := publish(v, msgs...)
		p.Pulled = true
		c.send(p)
	}
	sent(1)
	pull(1, "type error")
	if f := status(); f.Status != messages.StatusFresh || len(f.Diagnostics) != 1 {
		t.Fatalf("pulled at version 1: %s (%s) %v, want fresh with its error", f.Status, f.Detail, f.Diagnostics)
	}
	sent(2)
	c.send(publish(2, "borrow error")) // the check's push, before the pull
	if f := status(); f.Status != messages.StatusStale {
		t.Errorf("version 2 pushed, not pulled: %s (%s) %v, want stale", f.Status, f.Detail, f.Diagnostics)
	}
	pull(2, "type error")
	if f := status(); f.Status != messages.StatusFresh || len(f.Diagnostics) != 2 {
		t.Errorf("version 2 pulled: %s (%s) %v, want fresh with both errors", f.Status, f.Detail, f.Diagnostics)
	}
}

// snapshot is the actor's report of fakeURI without waiting.
func (c *clocked) snapshot() messages.FileReport {
	snap := c.h.Ask(c.diag, &messages.GetDiagnostics{URIs: []string{fakeURI}}).(*messages.DiagnosticsSnapshot)
	return snap.Files[0]
}
