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
// new in a diagnostics call's answer, which the named file cannot reach
// by its imports, is not presented as the named file's doing even when no
// other change was seen: its ChangedBy says so.
func TestDiagnosticsCallOtherFileOutOfReach(t *testing.T) {
	ws := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"e/e.go": "package e\n\nfunc E() int { return 1 }\n",
		"b/b.go": "package b\n\nfunc B() int { return 2 }\n",
	} {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reaper := &lifecycle.Reaper{}
	c := newClockedWith(t, diagnostics.Config{Workspace: ws, Reaper: reaper})
	named, other := paths.URI(filepath.Join(ws, "e", "e.go")), paths.URI(filepath.Join(ws, "b", "b.go"))
	c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: named, Current: true})
	c.released() // EditStarted handled: the reach of the named file is being computed
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !reaper.Wait(ctx) {
		t.Fatal("the reach was not computed")
	}
	broken := publish(1, "broken elsewhere")
	broken.URI = other
	c.send(broken)
	c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: named, Current: true,
		Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
		WaitOptions: messages.WaitOptions{Timeout: time.Second, All: true}})
	own := publish(2)
	own.URI = named
	c.send(own)
	c.released()
	c.clock.Advance(time.Second)
	testenv.Eventually(t, 10*time.Second, "edit released", c.released)
	r := <-c.results
	i := slices.IndexFunc(r.Files, func(f messages.FileReport) bool { return f.URI == other })
	if i < 0 {
		t.Fatalf("files = %+v, want b.go among the other files", r.Files)
	}
	if want := []string{"not reachable from e.go", "cause unknown"}; !slices.Equal(r.Files[i].ChangedBy, want) {
		t.Errorf("b.go changed by %q, want %q", r.Files[i].ChangedBy, want)
	}
}
