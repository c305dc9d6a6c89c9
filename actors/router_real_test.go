package actors_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// builtin returns a built-in server definition with its command replaced
// by the installed binary.
func builtin(t *testing.T, id, binary string) *config.Server {
	s := config.Builtins()[id]
	if s == nil {
		t.Fatalf("no built-in %s", id)
	}
	s.Command = testenv.ServerBinary(t, binary)
	s.StartupTimeout = config.Duration(90 * time.Second)
	s.RequestTimeout = config.Duration(60 * time.Second)
	return s
}

// TestRouterGoplsSeesDiskChange: with a.go open, b.go changes on disk so
// that a.go no longer compiles; gopls (told by the watcher through
// didChangeWatchedFiles) reports the new error in a.go without anyone
// touching a.go.
func TestRouterGoplsSeesDiskChange(t *testing.T) {
	h := newHarness(t)
	ws := testenv.CopyDir(t, filepath.Join("..", "test", "testdata", "gocross"))
	router := h.router(ws, config.RegistryOf(builtin(t, "gopls", "gopls")), func(c *actors.RouterConfig) {
		c.Watch, c.WatchDebounce = true, 20*time.Millisecond
	})
	a := filepath.Join(ws, "a.go")
	text, _ := os.ReadFile(a)
	h.sync(router, "agent", a, messages.SyncOpen, string(text))
	uri := actors.PathToURI(a)
	h.awaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return d.Version == 1 && len(d.Diagnostics) == 0 })
	// gopls registered its file watchers before it published diagnostics.
	if err := os.WriteFile(filepath.Join(ws, "b.go"), []byte("package cross\n\n// C replaced B.\nfunc C() int { return 41 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := h.awaitDiagnostics(uri, func(d *messages.PublishedDiagnostics) bool { return len(d.Diagnostics) > 0 })
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
	h := newHarness(t)
	ws := t.TempDir()
	for _, p := range []string{"gomod", "pyproj", "tsproj"} {
		testenv.CopyInto(t, filepath.Join("..", "test", "testdata", p), filepath.Join(ws, p))
	}
	ws, _ = filepath.EvalSymlinks(ws)
	reg := config.RegistryOf(
		builtin(t, "gopls", "gopls"),
		builtin(t, "pyright", "pyright-langserver"),
		builtin(t, "typescript-language-server", "typescript-language-server"),
	)
	router := h.router(ws, reg, nil)
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
		if res := h.sync(router, "agent", path, messages.SyncOpen, string(text)); res.Err != nil {
			t.Fatalf("open %s: %v", tc.file, res.Err)
		}
		if tc.wantServer != "pyright" {
			// The first diagnostics mean the project is loaded (pyright, asked
			// for pull diagnostics, publishes none).
			h.awaitDiagnostics(actors.PathToURI(path), func(*messages.PublishedDiagnostics) bool { return true })
		}
		res := h.fileRequest(router, path, "textDocument/definition", map[string]any{
			"textDocument": map[string]string{"uri": actors.PathToURI(path)},
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
		want := location{actors.PathToURI(filepath.Join(ws, tc.wantFile)), tc.wantRange}
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
