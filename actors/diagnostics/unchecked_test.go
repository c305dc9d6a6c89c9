package diagnostics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestFirstDiagnosisIsNotTheEdits: another file opened on a server that
// diagnoses open files only (DocumentSent.OpenOnly) and first diagnosed
// while an edit waits has nothing to compare its errors with: they are
// reported as changed meanwhile, first checked, not as the edit's. Once
// diagnosed before an edit, its new errors are the edit's. A server that
// does not say it diagnoses open files only (gopls) is not affected.
func TestFirstDiagnosisIsNotTheEdits(t *testing.T) {
	for _, openOnly := range []bool{true, false} {
		name := "open files only"
		if !openOnly {
			name = "closed files too"
		}
		t.Run(name, func(t *testing.T) {
			c := newClocked(t)
			const other = "file:///r/b.go"
			sent := func(uri string, version int32, view uint64) {
				c.send(&messages.DocumentSent{ServerID: fakeSrv.ServerID, Root: fakeSrv.Root, URI: uri,
					Version: version, View: view, OpenOnly: openOnly})
			}
			pulled := func(uri string, version int32, view uint64, msgs ...string) {
				p := publish(version, msgs...)
				p.URI, p.Pulled, p.View = uri, true, view
				c.send(p)
			}
			edit := func(id uint64, version int32, view uint64, otherMsgs ...string) *messages.EditResult {
				c.send(&messages.EditStarted{EditID: id, Session: "a", URI: fakeURI})
				sent(fakeURI, version, view)
				pulled(other, 1, view+1, otherMsgs...)
				c.await(&messages.AwaitEdit{EditID: id, Session: "a", URI: fakeURI,
					Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: version}},
					WaitOptions: messages.WaitOptions{Timeout: time.Second}})
				pulled(fakeURI, version, view)
				testenv.Eventually(t, 10*time.Second, "edit released", c.released)
				return <-c.results
			}
			sent(fakeURI, 1, 1)
			pulled(fakeURI, 1, 1)
			sent(other, 1, 2) // opened just before the edit; not diagnosed yet
			r := edit(1, 2, 3, "old error")
			switch {
			case openOnly && (len(r.Files) != 1 || len(r.Meanwhile) != 1 || !strings.HasPrefix(firstOf(r.Meanwhile[0].ChangedBy), "first checked now")):
				t.Errorf("first diagnosis: files %+v, meanwhile %+v; want b.go changed meanwhile, first checked", r.Files, r.Meanwhile)
			case !openOnly && (len(r.Files) != 2 || len(r.Meanwhile) != 0):
				t.Errorf("first diagnosis on a server of closed files too: files %+v, meanwhile %+v; want b.go the edit's", r.Files, r.Meanwhile)
			}
			r = edit(2, 3, 5, "old error", "new error")
			if len(r.Files) != 2 || len(r.Meanwhile) != 0 || len(r.Files[1].ChangedBy) != 0 {
				t.Errorf("diagnosed before the edit: files %+v, meanwhile %+v; want b.go's new error the edit's", r.Files, r.Meanwhile)
			}
		})
	}
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
