package config

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuiltinsComplete(t *testing.T) {
	for id, s := range Builtins() {
		if s.ID != id {
			t.Errorf("Builtins()[%q].ID = %q, want %q", id, s.ID, id)
		}
		if s.Command == "" || len(s.Extensions) == 0 || len(s.RootMarkers) == 0 || s.InstallHint == "" {
			t.Errorf("Builtins()[%q] = command %q, %d extensions, %d markers, hint %q; want all set",
				id, s.Command, len(s.Extensions), len(s.RootMarkers), s.InstallHint)
		}
		// A built-in must pass the validation a user's entry gets.
		e := &Entry{Server: *s, Fields: fieldNames, Path: "builtin." + id}
		if err := validateEntry("builtin", e); err != nil {
			t.Errorf("validateEntry(Builtins()[%q]) = %v, want nil", id, err)
		}
		if err := checkMerged("builtin", e, s, false); err != nil {
			t.Errorf("checkMerged(Builtins()[%q]) = %v, want nil", id, err)
		}
	}
}

func TestBuiltinsTable(t *testing.T) {
	type row struct {
		Command  string
		Args     []string
		Hint     string
		Disabled bool
	}
	want := map[string]row{
		"bash-language-server":        {"bash-language-server", []string{"start"}, "agentlsp servers --install bash-language-server", false},
		"clangd":                      {"clangd", nil, "agentlsp servers --install clangd", false},
		"dockerfile-language-server":  {"docker-langserver", []string{"--stdio"}, "npm install -g dockerfile-language-server-nodejs", false},
		"gopls":                       {"gopls", nil, "agentlsp servers --install gopls", false},
		"pylsp":                       {"pylsp", nil, "agentlsp servers --install pylsp", true},
		"pyright":                     {"pyright-langserver", []string{"--stdio"}, "agentlsp servers --install pyright", false},
		"rust-analyzer":               {"rust-analyzer", nil, "agentlsp servers --install rust-analyzer", false},
		"tsgo":                        {"tsgo", []string{"--lsp", "--stdio"}, "npm install -g @typescript/native-preview", true},
		"typescript-language-server":  {"typescript-language-server", []string{"--stdio"}, "agentlsp servers --install typescript-language-server", false},
		"vscode-css-language-server":  {"vscode-css-language-server", []string{"--stdio"}, "agentlsp servers --install vscode-css-language-server", false},
		"vscode-html-language-server": {"vscode-html-language-server", []string{"--stdio"}, "agentlsp servers --install vscode-html-language-server", false},
		"vscode-json-language-server": {"vscode-json-language-server", []string{"--stdio"}, "agentlsp servers --install vscode-json-language-server", false},
		"yaml-language-server":        {"yaml-language-server", []string{"--stdio"}, "agentlsp servers --install yaml-language-server", false},
	}
	got := map[string]row{}
	for id, s := range Builtins() {
		got[id] = row{s.Command, s.Args, s.InstallHint, s.Disabled}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Builtins() mismatch (-want +got):\n%s", d)
	}
}

func TestBuiltinsDetails(t *testing.T) {
	b := Builtins()
	tests := []struct {
		name      string
		got, want any
	}{
		{"gopls.RootMarkers", b["gopls"].RootMarkers, []string{"go.work", "go.mod"}},
		{"gopls.RootMarkerPriority", b["gopls"].RootMarkerPriority, true},
		{"gopls.Settings", b["gopls"].Settings, map[string]any{"gopls": map[string]any{"diagnosticsDelay": "0s", "symbolScope": "workspace", "verboseWorkDoneProgress": true}}},
		{"gopls.Filenames", b["gopls"].Filenames, map[string]string{"go.mod": "go.mod", "go.work": "go.work"}},
		{"pyright.RootMarkers", b["pyright"].RootMarkers,
			[]string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"}},
		{"pyright.ConfigFiles", b["pyright"].ConfigFiles, []string{"pyproject.toml", "pyrightconfig.json"}},
		{"typescript-language-server.ConfigFiles", b["typescript-language-server"].ConfigFiles,
			[]string{"**/tsconfig.json", "**/jsconfig.json"}},
		{"clangd.ConfigFiles", b["clangd"].ConfigFiles,
			[]string{"**/compile_commands.json", "**/compile_flags.txt", "**/.clangd", "build/compile_commands.json"}},
		{"typescript-language-server.Extensions", slices.Sorted(maps.Keys(b["typescript-language-server"].Extensions)),
			[]string{".cjs", ".cts", ".js", ".jsx", ".mjs", ".mts", ".ts", ".tsx"}},
		{"typescript-language-server.RootMarkers", b["typescript-language-server"].RootMarkers,
			[]string{"tsconfig.json", "jsconfig.json", "package.json"}},
		{"typescript-language-server.ExcludeMarkers", b["typescript-language-server"].ExcludeMarkers,
			[]string{"deno.json", "deno.jsonc"}},
		{"tsgo.Extensions", b["tsgo"].Extensions, b["typescript-language-server"].Extensions},
		{"clangd.Extensions", slices.Sorted(maps.Keys(b["clangd"].Extensions)),
			[]string{".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx"}},
		{"clangd.RootMarkers", b["clangd"].RootMarkers,
			[]string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"}},
		{"rust-analyzer.Env", b["rust-analyzer"].Env, map[string]string{"CARGO_NET_OFFLINE": "true"}},
		{"rust-analyzer.RootMarkers[0]", b["rust-analyzer"].RootMarkers[0], "Cargo.toml"},
		{"yaml-language-server.Settings", b["yaml-language-server"].Settings,
			map[string]any{"yaml": map[string]any{"schemaStore": map[string]any{"enable": false}}}},
		{"dockerfile-language-server.Filenames", b["dockerfile-language-server"].Filenames,
			map[string]string{"Dockerfile": "dockerfile", "Containerfile": "dockerfile"}},
		{"bash-language-server.Extensions", b["bash-language-server"].Extensions,
			map[string]string{".sh": "shellscript", ".bash": "shellscript"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, tt.got); d != "" {
			t.Errorf("Builtins() %s mismatch (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestBuiltinsFresh(t *testing.T) {
	a := Builtins()
	a["gopls"].Args = append(a["gopls"].Args, "-rpc.trace")
	a["gopls"].Extensions[".x"] = "x"
	a["yaml-language-server"].Settings["yaml"].(map[string]any)["schemaStore"] = nil
	if d := cmp.Diff(gopls(), Builtins()["gopls"]); d != "" {
		t.Errorf("Builtins() after a caller's change (-want +got):\n%s", d)
	}
	if d := cmp.Diff(yamlLS(), Builtins()["yaml-language-server"]); d != "" {
		t.Errorf("Builtins() after a caller's change (-want +got):\n%s", d)
	}
}

// TestIsSource: gopls serves .go files (any case) as sources and go.mod
// by name, as a project file.
func TestIsSource(t *testing.T) {
	g := Builtins()["gopls"]
	for path, want := range map[string]bool{"/m/a/main.go": true, "/m/a/MAIN.GO": true, "/m/go.mod": false, "/m/README": false, "/m/x.py": false} {
		if got := g.IsSource(path); got != want {
			t.Errorf("IsSource(%q) = %v, want %v", path, got, want)
		}
		if _, served := g.LanguageID(path); served != (want || path == "/m/go.mod") {
			t.Errorf("LanguageID(%q) served = %v", path, served)
		}
	}
}

// TestTypeScriptTakesAgentlspsWatcher: typescript-language-server is asked
// to take file changes from agentlsp (didChangeWatchedFiles), which it
// otherwise drops while tsserver watches the disk on its own, late (see
// test/fresh's TestTypeScriptModuleRecreated); tsgo is not.
func TestTypeScriptTakesAgentlspsWatcher(t *testing.T) {
	b := Builtins()
	var opts struct {
		TSServer struct {
			UseClientFileWatcher bool `json:"useClientFileWatcher"`
		} `json:"tsserver"`
	}
	if err := json.Unmarshal(b["typescript-language-server"].InitializationOptions, &opts); err != nil || !opts.TSServer.UseClientFileWatcher {
		t.Errorf("typescript-language-server initializationOptions %s (%v): want tsserver.useClientFileWatcher true",
			b["typescript-language-server"].InitializationOptions, err)
	}
	if o := b["tsgo"].InitializationOptions; o != nil {
		t.Errorf("tsgo initializationOptions %s, want none", o)
	}
}

// TestTsgoIsNotTypeScriptsTsc: tsgo's command is found as tsgo, the
// command @typescript/native-preview installs, and never as the tsc that
// agentlsp's cache holds for typescript-language-server (TypeScript 5,
// which has no --lsp: enabled, tsgo crash-looped with "exit status 1").
func TestTsgoIsNotTypeScriptsTsc(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe("tsc")
	resolved := func() string {
		enabled := Builtins()["tsgo"]
		enabled.Disabled = false
		s, ok := RegistryOf(enabled).WithCommandsIn([]string{dir}).Get("tsgo")
		if !ok {
			t.Fatal("no tsgo")
		}
		return s.Command
	}
	if got := resolved(); got != "tsgo" {
		t.Errorf("tsgo's command with a tsc installed = %q, want tsgo, not found", got)
	}
	tsgo := exe("tsgo")
	if got := resolved(); got != tsgo {
		t.Errorf("tsgo's command with tsgo installed = %q, want %q", got, tsgo)
	}
}
