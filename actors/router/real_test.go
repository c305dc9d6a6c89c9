package router_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors/router"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestRouterGoplsSeesDiskChange: with a.go open, b.go changes on disk so
// that a.go no longer compiles; gopls (told by the watcher through
// didChangeWatchedFiles) reports the new error in a.go without anyone
// touching a.go.
func TestRouterGoplsSeesDiskChange(t *testing.T) {
	h := actortest.New(t)
	ws := testenv.CopyDir(t, actortest.Testdata("gocross"))
	router := h.Router(ws, config.RegistryOf(actortest.Builtin(t, "gopls", "gopls")), func(c *router.Config) {
		c.Watch, c.WatchDebounce = true, 20*time.Millisecond
	})
	a := filepath.Join(ws, "a.go")
	text, _ := os.ReadFile(a)
	h.Sync(router, "agent", a, messages.SyncChange, string(text))
	uri := paths.URI(a)
	h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return d.Version == 1 && len(d.Diagnostics) == 0 })
	// gopls registered its file watchers before it published diagnostics.
	if err := os.WriteFile(filepath.Join(ws, "b.go"), []byte("package cross\n\n// C replaced B.\nfunc C() int { return 41 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := h.AwaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return len(d.Diagnostics) > 0 })
	want := []messages.Diagnostic{{
		Range:    messages.Range{Start: messages.Position{Line: 4, Character: 8}, End: messages.Position{Line: 4, Character: 9}},
		Severity: messages.SeverityError, Code: "UndeclaredName", Source: "compiler", Message: "undefined: B",
	}}
	if diff := cmp.Diff(want, d.Diagnostics); diff != "" {
		t.Errorf("a.go diagnostics after b.go changed on disk (-want +got):\n%s", diff)
	}
}

// TestRouterRealServersInOneWorkspace: a workspace with a Go module, a
// Python project and a TypeScript package; each file reaches its real
// server at the right root, and definitions come back exactly.
func TestRouterRealServersInOneWorkspace(t *testing.T) {
	h := actortest.New(t)
	ws := t.TempDir()
	for _, p := range []string{"gomod", "pyproj", "tsproj"} {
		testenv.CopyInto(t, actortest.Testdata(p), filepath.Join(ws, p))
	}
	ws, _ = filepath.EvalSymlinks(ws)
	reg := config.RegistryOf(
		actortest.Builtin(t, "gopls", "gopls"),
		actortest.Builtin(t, "pyright", "pyright-langserver"),
		actortest.Builtin(t, "typescript-language-server", "typescript-language-server"),
	)
	router := h.Router(ws, reg, nil)
	tests := []struct {
		file       string
		line, char int
		wantServer string
		wantFile   string
		wantRange  [4]int
	}{
		{"gomod/main.go", 10, 14, "gopls", "gomod/main.go", [4]int{5, 5, 5, 13}},
		{"pyproj/main.py", 2, 7, "pyright", "pyproj/util.py", [4]int{0, 4, 0, 10}},
		{"tsproj/src/main.ts", 2, 13, "typescript-language-server", "tsproj/src/util.ts", [4]int{0, 16, 0, 22}},
	}
	for _, tc := range tests {
		path := filepath.Join(ws, tc.file)
		text, _ := os.ReadFile(path)
		if res := h.Sync(router, "agent", path, messages.SyncChange, string(text)); res.Err != nil {
			t.Fatalf("open %s: %v", tc.file, res.Err)
		}
		if tc.wantServer != "pyright" {
			// The first diagnostics mean the project is loaded (pyright, asked
			// for pull diagnostics, publishes none).
			h.AwaitDiagnostics(paths.URI(path), func(*messages.PublishedDiagnostics) bool { return true })
		}
		res := h.FileRequest(router, path, "textDocument/definition", map[string]any{
			"textDocument": map[string]string{"uri": paths.URI(path)},
			"position":     map[string]int{"line": tc.line, "character": tc.char},
		})
		if res.Err != nil || len(res.Results) != 1 || res.Results[0].Err != nil {
			t.Fatalf("definition in %s = %+v", tc.file, res)
		}
		r := res.Results[0]
		wantRoot := filepath.Join(ws, filepath.Dir(tc.file))
		if tc.wantServer == "typescript-language-server" {
			wantRoot = filepath.Join(ws, "tsproj")
		}
		if r.ServerID != tc.wantServer || r.Root != wantRoot {
			t.Errorf("%s answered by %s@%s, want %s@%s", tc.file, r.ServerID, r.Root, tc.wantServer, wantRoot)
		}
		got := firstLocation(t, r.Result)
		want := location{paths.URI(filepath.Join(ws, tc.wantFile)), tc.wantRange}
		if got != want {
			t.Errorf("definition in %s = %+v, want %+v", tc.file, got, want)
		}
	}
}

type location struct {
	URI   string
	Range [4]int
}

// firstLocation reads a Location, Location[] or LocationLink[] result.
func firstLocation(t *testing.T, raw json.RawMessage) location {
	t.Helper()
	type pos struct{ Line, Character int }
	type rng struct{ Start, End pos }
	var items []struct {
		URI                  string `json:"uri"`
		Range                rng    `json:"range"`
		TargetURI            string `json:"targetUri"`
		TargetSelectionRange rng    `json:"targetSelectionRange"`
	}
	if len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte("["), raw...), ']')
	}
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		t.Fatalf("not a location result: %s (%v)", raw, err)
	}
	it := items[0]
	if it.TargetURI != "" {
		it.URI, it.Range = it.TargetURI, it.TargetSelectionRange
	}
	return location{it.URI, [4]int{it.Range.Start.Line, it.Range.Start.Character, it.Range.End.Line, it.Range.End.Character}}
}
