package actors_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestPullDiagnostics: with a pull-capable server (static or dynamically
// registered) the actor pulls after open and change and publishes complete
// results for the right version; resultIds are sent back and "unchanged"
// reports keep the previous items.
func TestPullDiagnostics(t *testing.T) {
	for _, mode := range []string{"--pull", "--pull-register"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t)
			srv, record := fakeServer(t, mode, "--no-push", "--refresh-on-save")
			pid := h.spawn(srv, t.TempDir(), nil)
			h.awaitState(messages.StateRunning, 1, 30*time.Second)
			if mode == "--pull-register" {
				testenv.Eventually(t, 10*time.Second, "dynamic registration", func() bool {
					return len(h.status(pid).Registrations) == 1
				})
			}
			h.open(pid, docURI, "a // ERROR: one\n")
			d := h.awaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 1 })
			if len(d.Diagnostics) != 1 || d.Diagnostics[0].Message != "one" {
				t.Errorf("pulled v1 = %+v", d.Diagnostics)
			}
			h.change(pid, docURI, "a // ERROR: one\nb // ERROR: two\n")
			d = h.awaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 2 })
			if len(d.Diagnostics) != 2 {
				t.Errorf("pulled v2 = %+v", d.Diagnostics)
			}
			// didSave makes the fake ask for a refresh: the re-pull sends the
			// resultId, gets "unchanged", and keeps the two items.
			h.ask(pid, &messages.SaveDocument{URI: docURI})
			testenv.Eventually(t, 10*time.Second, "a pull with previousResultId v2", func() bool {
				for _, r := range testenv.Records(t, record) {
					var p struct{ PreviousResultID string }
					if r.Method == "textDocument/diagnostic" && json.Unmarshal(r.Params, &p) == nil && p.PreviousResultID == "v2" {
						return true
					}
				}
				return false
			})
			d = h.awaitDiagnostics(docURI, func(d *messages.PublishedDiagnostics) bool { return d.Pulled && d.Version == 2 })
			if len(d.Diagnostics) != 2 {
				t.Errorf("after unchanged report = %+v, want the 2 kept", d.Diagnostics)
			}
		})
	}
}
