package diagnostics_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestDiagnosticsCallOtherFileOutOfReach: another file whose errors are
// new in a diagnostics call's answer, which none of the files named can
// reach by its imports, is not presented as their doing even when no other
// change was seen: its ChangedBy says so. When a change to one of them
// can reach it (it imports that file's package), nothing is ruled out.
func TestDiagnosticsCallOtherFileOutOfReach(t *testing.T) {
	for _, tc := range []struct {
		name  string
		named []string // the files the call names; the first is awaited
		want  []string
	}{
		{"one file", []string{"e/e.go"}, []string{"not reachable from e.go", "cause unknown"}},
		{"two files, neither reaches it", []string{"e/e.go", "f/f.go"}, []string{"not reachable from e.go and f.go", "cause unknown"}},
		{"two files, it imports the other", []string{"e/e.go", "g/g.go"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			for rel, text := range map[string]string{
				"go.mod": "module example.com/m\n\ngo 1.22\n",
				"e/e.go": "package e\n\nfunc E() int { return 1 }\n",
				"f/f.go": "package f\n\nfunc F() int { return 3 }\n",
				"g/g.go": "package g\n\nfunc G() int { return 4 }\n",
				"b/b.go": "package b\n\nimport \"example.com/m/g\"\n\nfunc B() int { return g.G() }\n",
			} {
				p := filepath.Join(ws, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			uris := make([]string, len(tc.named))
			for i, rel := range tc.named {
				uris[i] = paths.URI(filepath.Join(ws, filepath.FromSlash(rel)))
			}
			reaper := &lifecycle.Reaper{}
			c := newClockedWith(t, diagnostics.Config{Workspace: ws, Reaper: reaper})
			other := paths.URI(filepath.Join(ws, "b", "b.go"))
			// One edit per file named, as Session.Diagnostics makes them.
			for i, u := range uris {
				c.send(&messages.EditStarted{EditID: uint64(i + 1), Session: "a", URI: u, Current: true})
				c.released() // EditStarted handled: the file's reach is being computed
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if !reaper.Wait(ctx) {
				t.Fatal("the reaches were not computed")
			}
			broken := publish(1, "broken elsewhere")
			broken.URI = other
			c.send(broken)
			c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: uris[0], Current: true, Named: uris[1:],
				Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
				WaitOptions: messages.WaitOptions{Timeout: time.Second, All: true}})
			own := publish(2)
			own.URI = uris[0]
			c.send(own)
			c.released()
			c.clock.Advance(time.Second)
			testenv.Eventually(t, 10*time.Second, "edit released", c.released)
			r := <-c.results
			i := slices.IndexFunc(r.Files, func(f messages.FileReport) bool { return f.URI == other })
			if i < 0 {
				t.Fatalf("files = %+v, want b.go among the other files", r.Files)
			}
			if !slices.Equal(r.Files[i].ChangedBy, tc.want) {
				t.Errorf("b.go changed by %q, want %q", r.Files[i].ChangedBy, tc.want)
			}
		})
	}
}
