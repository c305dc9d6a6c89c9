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
// can reach it (it imports that file's package), nothing is ruled out. A
// directory made on disk is no cause itself.
func TestDiagnosticsCallOtherFileOutOfReach(t *testing.T) {
	for _, tc := range []struct {
		name  string
		named []string // the files the call names; the first is awaited
		dir   string   // a directory made on disk before the call: no cause
		want  []string
	}{
		{"one file", []string{"e/e.go"}, "", []string{"not reachable from e.go", "cause unknown"}},
		{"one file, a directory made", []string{"e/e.go"}, "n/deep", []string{"not reachable from e.go", "cause unknown"}},
		{"two files, neither reaches it", []string{"e/e.go", "f/f.go"}, "", []string{"not reachable from e.go and f.go", "cause unknown"}},
		{"two files, it imports the other", []string{"e/e.go", "g/g.go"}, "", nil},
		{"five files, none reaches it", []string{"e/e.go", "f/f.go", "h/h.go", "i/i.go", "j/j.go"}, "",
			[]string{"not reachable from e.go, f.go, h.go and 2 more files", "cause unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			for rel, text := range map[string]string{
				"go.mod": "module example.com/m\n\ngo 1.22\n",
				"e/e.go": "package e\n\nfunc E() int { return 1 }\n",
				"f/f.go": "package f\n\nfunc F() int { return 3 }\n",
				"h/h.go": "package h\n\nfunc H() int { return 5 }\n",
				"i/i.go": "package i\n\nfunc I() int { return 6 }\n",
				"j/j.go": "package j\n\nfunc J() int { return 7 }\n",
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
			if tc.dir != "" { // the files written in it would be changes of their own; the watcher says it is one
				dir := filepath.Join(ws, filepath.FromSlash(tc.dir))
				c.send(&messages.FilesChanged{Changes: []messages.FileChange{{Path: dir, URI: paths.URI(dir), Type: messages.FileCreated, Dir: true}}})
			}
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

// TestFirstDiagnosticsCallGoesBackToItsFilesChange: a session's first
// diagnostics call reports another file that the named file's change on
// disk broke, even when its server diagnosed it before the call began (a
// runtime that watches the disk, shared by agents that each start a
// session of their own), and not one broken after another file's change.
func TestFirstDiagnosticsCallGoesBackToItsFilesChange(t *testing.T) {
	for _, tc := range []struct {
		name, changed string
		want          bool
	}{
		{"the named file changed", "/r/a.go", true},
		{"another file changed", "/r/c.go", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClocked(t)
			other := "file:///r/b.go"
			clean := publish(1)
			clean.URI = other
			c.send(clean)
			c.clock.Advance(time.Second)
			c.send(&messages.FilesChanged{Changes: []messages.FileChange{{Path: tc.changed, URI: paths.URI(tc.changed)}}})
			c.clock.Advance(100 * time.Millisecond)
			broken := publish(2, "broken by a change")
			broken.URI = other
			c.send(broken)
			c.clock.Advance(2 * time.Second)
			c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI, Current: true})
			c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI, Current: true,
				Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
				WaitOptions: messages.WaitOptions{Timeout: time.Second, All: true}})
			c.send(publish(2))
			c.released()
			c.clock.Advance(time.Second)
			testenv.Eventually(t, 10*time.Second, "edit released", c.released)
			r := <-c.results
			i := slices.IndexFunc(r.Files, func(f messages.FileReport) bool { return f.URI == other })
			switch {
			case tc.want && i < 0:
				t.Errorf("files %+v, want b.go, which a.go's change broke", r.Files)
			case tc.want && len(r.Files[i].ChangedBy) > 0:
				t.Errorf("b.go changed by %q, want nothing but the named file", r.Files[i].ChangedBy)
			case !tc.want && i >= 0:
				t.Errorf("files %+v, want no b.go: it broke before the call, after a change to another file", r.Files)
			}
		})
	}
}
