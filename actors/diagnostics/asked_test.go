package diagnostics_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestOtherFilePulledBeforeTheEditIsNotReported: another file's pulled
// diagnostics that arrive while an edit waits, from a pull asked for
// before the server had the edit's version, describe a workspace without
// the edit. Pyright's answer for a file it had open came in after the
// answer to a round that deleted a module it imports, and that answer
// named the file fresh with its error from before the deletion. Such a
// result is left out of the answer; one pulled after the edit's version
// went out is in it, for an edit (as caused) and for a diagnostics call
// (Current).
func TestOtherFilePulledBeforeTheEditIsNotReported(t *testing.T) {
	for _, current := range []bool{false, true} {
		name := "edit"
		if current {
			name = "diagnostics call"
		}
		t.Run(name, func(t *testing.T) {
			c := newClocked(t)
			const other = "file:///r/b.go"
			pulled := func(uri string, version int32, view uint64, msgs ...string) *messages.PublishedDiagnostics {
				p := publish(version, msgs...)
				p.URI, p.Pulled, p.View = uri, true, view
				return p
			}
			edit := func(id uint64, version int32, view uint64, otherView uint64) *messages.EditResult {
				c.send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
				c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: fakeURI,
					Version: version, View: view})
				c.send(pulled(other, 1, otherView, "b.go broken", fmt.Sprint("pulled at view ", otherView)))
				c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI, Current: current,
					Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: version}},
					WaitOptions: messages.WaitOptions{Timeout: time.Second, All: current}})
				c.send(pulled(fakeURI, version, view))
				testenv.Eventually(t, 10*time.Second, "edit released", c.released)
				return <-c.results
			}
			files := func(r *messages.EditResult) []string { return fileURIs(append(r.Files, r.Meanwhile...)...) }

			// The other file's result was asked for at view 9, the edit's
			// text went out at view 10.
			r := edit(1, 2, 10, 9)
			if got := files(r); len(got) != 1 || got[0] != fakeURI {
				t.Errorf("pulled before the edit's version: files %v, want only %s", got, fakeURI)
			}
			// Asked for at view 12, after the edit's text (view 11).
			r = edit(2, 3, 11, 12)
			if got := files(r); len(got) != 2 || got[1] != other {
				t.Fatalf("pulled after the edit's version: files %v, want %s and %s", got, fakeURI, other)
			}
			if f := append(r.Files, r.Meanwhile...)[1]; f.Status != messages.StatusFresh || len(f.Diagnostics) == 0 {
				t.Errorf("other file = %s %v, want fresh with its errors", f.Status, actortest.MessagesOf(f))
			}
		})
	}
}
