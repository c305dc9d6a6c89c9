package config

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustRegistry(t *testing.T, in string) *Registry {
	t.Helper()
	f, err := Parse([]byte(in), "agentlsp.json")
	if err != nil {
		t.Fatalf("Parse(%s) = %v", in, err)
	}
	r, err := NewRegistry(f)
	if err != nil {
		t.Fatalf("NewRegistry(%s) = %v", in, err)
	}
	return r
}

func ids(servers []*Server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.ID)
	}
	return out
}

func TestRegistryOverrideKeepsOtherFields(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "agentlsp.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRegistry(f)
	if err != nil {
		t.Fatalf("NewRegistry(testdata/agentlsp.json) = %v", err)
	}
	want := gopls()
	want.Args = []string{"-remote=auto"}
	want.StartupTimeout = Duration(time.Minute)
	want.Settings = map[string]any{"gopls": map[string]any{"diagnosticsDelay": "0s", "staticcheck": true, "symbolScope": "workspace", "verboseWorkDoneProgress": true}}
	got, ok := r.Get("gopls")
	if d := cmp.Diff(want, got); !ok || d != "" {
		t.Errorf("Get(gopls) mismatch (-want +got):\n%s", d)
	}

	wantZls := &Server{
		ID: "zls", Command: "zls", Extensions: map[string]string{".zig": "zig", ".zon": "zig"},
		RootMarkers: []string{"build.zig"}, RequestTimeout: Duration(5 * time.Second),
		RestartOnCrash: ptr(false), MaxRestarts: 2,
	}
	got, ok = r.Get("zls")
	if d := cmp.Diff(wantZls, got); !ok || d != "" {
		t.Errorf("Get(zls) mismatch (-want +got):\n%s", d)
	}

	wantIDs := []string{"bash-language-server", "clangd", "dockerfile-language-server", "gopls", "pylsp",
		"rust-analyzer", "typescript-language-server", "vscode-css-language-server",
		"vscode-html-language-server", "vscode-json-language-server", "yaml-language-server", "zls"}
	if d := cmp.Diff(wantIDs, ids(r.Servers())); d != "" {
		t.Errorf("Servers() mismatch (-want +got):\n%s", d)
	}
	if got := ids(r.ForPath("/w/a.py")); !cmp.Equal(got, []string{"pylsp"}) {
		t.Errorf("ForPath(a.py) = %v, want [pylsp]", got)
	}
	if s, ok := r.Get("pyright"); !ok || !s.Disabled {
		t.Errorf("Get(pyright) = %+v, %v; want it disabled", s, ok)
	}
}

func TestRegistryDefaults(t *testing.T) {
	r, err := NewRegistry(nil)
	if err != nil {
		t.Fatalf("NewRegistry(nil) = %v", err)
	}
	tests := []struct {
		path string
		want []string
	}{
		{"/w/main.go", []string{"gopls"}},
		{"/w/MAIN.GO", []string{"gopls"}},
		{"/w/go.mod", []string{"gopls"}},
		{"/w/a.py", []string{"pyright"}},
		{"/w/a.tsx", []string{"typescript-language-server"}},
		{"/w/a.mjs", []string{"typescript-language-server"}},
		{"/w/x.hpp", []string{"clangd"}},
		{"/w/Dockerfile", []string{"dockerfile-language-server"}},
		{"/w/sub/dockerfile", []string{"dockerfile-language-server"}},
		{"/w/app.dockerfile", []string{"dockerfile-language-server"}},
		{"/w/ci.yml", []string{"yaml-language-server"}},
		{"/w/run.sh", []string{"bash-language-server"}},
		{"/w/x.scss", []string{"vscode-css-language-server"}},
		{"/w/README", nil},
		{"/w/notes.txt", nil},
	}
	for _, tt := range tests {
		if got := ids(r.ForPath(tt.path)); !cmp.Equal(got, tt.want) {
			t.Errorf("ForPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
		if got := ids(r.Match(tt.path)); !cmp.Equal(got, tt.want) {
			t.Errorf("Match(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	want := []string{".bash", ".c", ".cc", ".cjs", ".cpp", ".css", ".cts", ".cxx", ".dockerfile", ".go", ".h",
		".hh", ".hpp", ".htm", ".html", ".hxx", ".js", ".json", ".jsonc", ".jsx", ".less", ".mjs", ".mts", ".py",
		".pyi", ".rs", ".scss", ".sh", ".ts", ".tsx", ".yaml", ".yml"}
	if d := cmp.Diff(want, r.Extensions()); d != "" {
		t.Errorf("Extensions() mismatch (-want +got):\n%s", d)
	}
	if got, want := len(r.All()), len(Builtins()); got != want {
		t.Errorf("len(All()) = %d, want %d", got, want)
	}
	if s, ok := r.Get("nope"); ok {
		t.Errorf("Get(nope) = %v, true; want false", s)
	}
}

func TestRegistryMergesSettingsAndEnv(t *testing.T) {
	r := mustRegistry(t, `{"servers": {
		"yaml-language-server": {"settings": {"yaml": {"validate": false}, "redhat": {"telemetry": {"enabled": false}}}},
		"rust-analyzer": {"env": {"RUST_LOG": "info"}, "args": []},
		"gopls": {"settings": {"gopls": null}}
	}}`)
	tests := []struct {
		id        string
		got, want any
	}{
		{"yaml-language-server", get(t, r, "yaml-language-server").Settings, map[string]any{
			"yaml":   map[string]any{"schemaStore": map[string]any{"enable": false}, "validate": false},
			"redhat": map[string]any{"telemetry": map[string]any{"enabled": false}},
		}},
		{"rust-analyzer", get(t, r, "rust-analyzer").Env, map[string]string{"CARGO_NET_OFFLINE": "true", "RUST_LOG": "info"}},
		{"gopls", get(t, r, "gopls").Settings, map[string]any{}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, tt.got); d != "" {
			t.Errorf("Get(%s) merged value mismatch (-want +got):\n%s", tt.id, d)
		}
	}
}

func TestRegistryEnableAndAdd(t *testing.T) {
	r := mustRegistry(t, `{"servers": {
		"tsgo": {"disabled": false, "command": "/opt/tsnative/node_modules/.bin/tsgo"},
		"typescript-language-server": {"disabled": true},
		"ruff": {"command": "ruff", "args": ["server"], "extensions": {".py": "python"}}
	}}`)
	if got, want := ids(r.ForPath("/w/a.ts")), []string{"tsgo"}; !cmp.Equal(got, want) {
		t.Errorf("ForPath(a.ts) = %v, want %v", got, want)
	}
	if got, want := ids(r.ForPath("/w/a.py")), []string{"pyright", "ruff"}; !cmp.Equal(got, want) {
		t.Errorf("ForPath(a.py) = %v, want %v", got, want)
	}
	tsgo := get(t, r, "tsgo")
	if tsgo.Command != "/opt/tsnative/node_modules/.bin/tsgo" || !cmp.Equal(tsgo.Args, []string{"--lsp", "--stdio"}) {
		t.Errorf("Get(tsgo) = %q %q, want the new command with the built-in args", tsgo.Command, tsgo.Args)
	}
}

func TestRegistryReturnsCopies(t *testing.T) {
	r := mustRegistry(t, `{}`)
	s := get(t, r, "yaml-language-server")
	s.Args[0] = "--changed"
	s.Extensions[".x"] = "x"
	s.Settings["yaml"] = nil
	if d := cmp.Diff(yamlLS(), get(t, r, "yaml-language-server")); d != "" {
		t.Errorf("Get after changing a returned Server (-want +got):\n%s", d)
	}
}

// TestRegistryConcurrent runs readers in parallel for the race detector.
func TestRegistryConcurrent(t *testing.T) {
	r := mustRegistry(t, `{}`)
	var wg sync.WaitGroup
	for range 8 {
		// Each reader lives until its loop ends; wg.Wait joins it.
		wg.Go(func() {
			for range 50 {
				r.Get("yaml-language-server")
				r.ForPath("/w/a.yaml")
				r.Servers()
			}
		})
	}
	wg.Wait()
}

func get(t *testing.T, r *Registry, id string) *Server {
	t.Helper()
	s, ok := r.Get(id)
	if !ok {
		t.Fatalf("Get(%q) = false, want a server", id)
	}
	return s
}

// ForPath's servers are the caller's to change; Match's are the
// registry's own, the same each time.
func TestRegistryForPathCopiesMatchShares(t *testing.T) {
	r, err := NewRegistry(nil)
	if err != nil {
		t.Fatalf("NewRegistry(nil) = %v", err)
	}
	mine := r.ForPath("/w/main.go")[0]
	mine.Args = append(mine.Args, "changed")
	mine.Settings["gopls"] = "changed"
	shared := r.Match("/w/main.go")[0]
	if slices.Contains(shared.Args, "changed") || shared.Settings["gopls"] == "changed" {
		t.Errorf("changing ForPath's server changed the registry's: %+v", shared)
	}
	if again := r.Match("/w/main.go")[0]; again != shared {
		t.Errorf("Match returned %p then %p; want the registry's own server both times", shared, again)
	}
	if copied := r.ForPath("/w/main.go")[0]; copied == shared {
		t.Error("ForPath returned the registry's own server; want a copy")
	}
}
