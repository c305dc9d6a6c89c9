package agentlsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// keepRuntime runs the fake for .py files with openTargets, its definition
// naming util.py, a.py, b.py and a file outside the workspace, in this
// order. It returns the runtime, the workspace and the fake's record.
func keepRuntime(t *testing.T, openTargets int) (*agentlsp.Runtime, string, string) {
	t.Helper()
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	for _, f := range []string{"a.py", "b.py"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var locs []string
	for _, f := range []string{filepath.Join(ws, "util.py"), filepath.Join(ws, "a.py"), filepath.Join(ws, "b.py"), "/elsewhere/c.py"} {
		locs = append(locs, fmt.Sprintf(`{"uri":"file://%s","range":{"start":{"line":0,"character":4},"end":{"line":0,"character":10}}}`, f))
	}
	responses := filepath.Join(t.TempDir(), "responses.json")
	if err := os.WriteFile(responses, []byte(`{"textDocument/definition":[`+strings.Join(locs, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, record := fakeRuntimeIn(t, ws, func(s *config.Server) { s.OpenTargets = openTargets }, "--responses", responses)
	return rt, ws, record
}

// opened returns the base names of the files the fake was told to open
// (didOpen) and to close (didClose), in order.
func opened(t *testing.T, record string) (open, closed []string) {
	t.Helper()
	for _, r := range testenv.Records(t, record) {
		if r.Method != "textDocument/didOpen" && r.Method != "textDocument/didClose" {
			continue
		}
		var p struct {
			TextDocument struct{ URI string } `json:"textDocument"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatalf("%s params %s: %v", r.Method, r.Params, err)
		}
		if name := filepath.Base(p.TextDocument.URI); r.Method == "textDocument/didOpen" {
			open = append(open, name)
		} else {
			closed = append(closed, name)
		}
	}
	return open, closed
}

// openFiles is the number of documents open on the only server.
func openFiles(t *testing.T, rt *agentlsp.Runtime) int {
	t.Helper()
	servers, err := rt.Servers(context.Background())
	if err != nil || len(servers) != 1 {
		t.Fatalf("Servers = %+v, %v", servers, err)
	}
	return servers[0].OpenFiles
}

// A definition's files in the workspace are opened on a server that keeps
// them, as many as it keeps, the first named first; they are closed when no
// session holds a document there any more.
func TestDefinitionKeepsItsFilesOpen(t *testing.T) {
	rt, ws, record := keepRuntime(t, 2)
	s := rt.Session("agent")
	ctx := context.Background()
	def, err := s.Definition(ctx, filepath.Join(ws, "main.py"), agentlsp.Position{Line: 0, Character: 18})
	if err != nil || len(def.Locations) != 4 {
		t.Fatalf("Definition = %+v, %v", def, err)
	}
	testenv.Eventually(t, 10*time.Second, "the definition's files open", func() bool {
		open, _ := opened(t, record)
		return len(open) == 3
	})
	// Any later message is handled after the KeepOpen (one mailbox).
	if n := openFiles(t, rt); n != 3 {
		t.Errorf("open files = %d, want 3 (main.py and the first two named)", n)
	}
	if _, err := s.Hover(ctx, filepath.Join(ws, "util.py"), agentlsp.Position{}); err != nil {
		t.Fatal(err)
	}
	open, closed := opened(t, record)
	slices.Sort(open[1:]) // the named files are read from disk at once, opened as each is read
	if want := []string{"main.py", "a.py", "util.py"}; !cmp.Equal(open, want) || len(closed) != 0 {
		t.Errorf("opened %v and closed %v, want %v and nothing", open, closed, want)
	}

	// The session's own document is closed; util.py, which the session
	// asked about too, stays open for the kept files' holder.
	if err := s.Close(ctx, filepath.Join(ws, "util.py")); err != nil {
		t.Fatal(err)
	}
	if n := openFiles(t, rt); n != 3 {
		t.Errorf("open files after the session closed util.py = %d, want 3", n)
	}
	// Once the session closes its last document there, the kept files go.
	if err := s.Close(ctx, filepath.Join(ws, "main.py")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "every file closed once the session closed its own", func() bool {
		_, closed := opened(t, record)
		return len(closed) == 3
	})
	_, closed = opened(t, record)
	slices.Sort(closed)
	if want := []string{"a.py", "main.py", "util.py"}; !cmp.Equal(closed, want) {
		t.Errorf("closed %v, want %v", closed, want)
	}
	if n := openFiles(t, rt); n != 0 {
		t.Errorf("open files after the session closed its files = %d, want 0", n)
	}

	// The same when a session ends.
	s2 := rt.Session("other")
	if _, err := s2.Definition(ctx, filepath.Join(ws, "main.py"), agentlsp.Position{Line: 0, Character: 18}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the definition's files open again", func() bool {
		open, _ := opened(t, record)
		return len(open) == 6
	})
	if n := openFiles(t, rt); n != 3 {
		t.Errorf("open files after the second definition = %d, want 3", n)
	}
	if err := s2.End(ctx); err != nil {
		t.Fatal(err)
	}
	if n := openFiles(t, rt); n != 0 {
		t.Errorf("open files after the session ended = %d, want 0", n)
	}
	testenv.Eventually(t, 10*time.Second, "every file closed once the session ended", func() bool {
		_, closed := opened(t, record)
		return len(closed) == 6
	})
}

// A server with openTargets 0 is sent nothing more than the file asked
// about.
func TestDefinitionOpensNothingWithoutOpenTargets(t *testing.T) {
	rt, ws, record := keepRuntime(t, 0)
	s := rt.Session("agent")
	ctx := context.Background()
	if _, err := s.Definition(ctx, filepath.Join(ws, "main.py"), agentlsp.Position{Line: 0, Character: 18}); err != nil {
		t.Fatal(err)
	}
	if n := openFiles(t, rt); n != 1 {
		t.Errorf("open files = %d, want 1", n)
	}
	if open, _ := opened(t, record); !cmp.Equal(open, []string{"main.py"}) {
		t.Errorf("opened %v, want [main.py]", open)
	}
}
