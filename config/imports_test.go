package config

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseOpenCodeSample(t *testing.T) {
	name := filepath.Join("testdata", "opencode.jsonc")
	f, err := LoadAny(name)
	if err != nil {
		t.Fatalf("LoadAny(%s) = %v", name, err)
	}
	want := map[string]entryView{
		"typescript-language-server": {Server: Server{Disabled: true}, Fields: []string{"disabled"}, Path: "lsp.typescript"},
		"gopls": {
			Server: Server{
				Command: "gopls", Args: []string{"-remote=auto"},
				Env:                   map[string]string{"GOFLAGS": "-tags=integration"},
				InitializationOptions: json.RawMessage(`{ "usePlaceholders": true }`),
			},
			Fields: []string{"args", "command", "env", "initializationOptions"},
			Path:   "lsp.gopls",
		},
		"custom-lsp": {
			Server: Server{
				Command: "custom-lsp-server", Args: []string{"--stdio"},
				Extensions: map[string]string{".ts": "typescript", ".foo": "foo"},
			},
			Fields: []string{"args", "command", "extensions"},
			Path:   "lsp.custom-lsp",
		},
	}
	if d := cmp.Diff(want, view(f)); d != "" {
		t.Errorf("LoadAny(%s) mismatch (-want +got):\n%s", name, d)
	}

	r, err := NewRegistry(f)
	if err != nil {
		t.Fatalf("NewRegistry(%s) = %v", name, err)
	}
	wantGopls := gopls()
	wantGopls.Args = []string{"-remote=auto"}
	wantGopls.Env = map[string]string{"GOFLAGS": "-tags=integration"}
	wantGopls.InitializationOptions = json.RawMessage(`{ "usePlaceholders": true }`)
	if d := cmp.Diff(wantGopls, get(t, r, "gopls")); d != "" {
		t.Errorf("Get(gopls) mismatch (-want +got):\n%s", d)
	}
	if got, want := ids(r.ForPath("/w/a.ts")), []string{"custom-lsp"}; !cmp.Equal(got, want) {
		t.Errorf("ForPath(a.ts) = %v, want %v", got, want)
	}
}

func TestParseOpenCodeDisableAll(t *testing.T) {
	f, err := ParseOpenCode([]byte(`{"lsp": false}`), "opencode.json")
	if err != nil {
		t.Fatalf("ParseOpenCode(lsp false) = %v", err)
	}
	r, err := NewRegistry(f)
	if err != nil {
		t.Fatalf("NewRegistry(lsp false) = %v", err)
	}
	if got := r.Servers(); len(got) != 0 {
		t.Errorf("Servers() = %v, want none", ids(got))
	}
	f, err = ParseOpenCode([]byte(`{"model": "x"}`), "opencode.json")
	if err != nil || len(f.Servers) != 0 {
		t.Errorf("ParseOpenCode(no lsp) = %v, %v; want no servers", f, err)
	}
}

func TestParseOpenCodeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"lsp": 3}`, `opencode.json: lsp: want an object or false, got 3`},
		{`{"lsp": {"gopls": {"command": "gopls"}}}`, `opencode.json: lsp.gopls.command: want an array of strings, got "gopls"`},
		{`{"lsp": {"gopls": {"command": []}}}`, `opencode.json: lsp.gopls.command: empty command`},
		{`{"lsp": {"gopls": {"command": ["gopls serve"]}}}`, `opencode.json: lsp.gopls.command: command "gopls serve" contains spaces; ` +
			`commands are never run through a shell: write "command": "gopls", "args": ["serve"]`},
		{`{"lsp": {"x": {"command": ["x"], "extensions": ["x"]}}}`, `opencode.json: lsp.x.extensions: extension "x" must start with a dot: ".x"`},
		{`{"lsp": {"x": {"command": ["x"], "extensions": ".x"}}}`, `opencode.json: lsp.x.extensions: want an array of strings, got ".x"`},
		{`{"lsp": {"x": {"command": ["x"]}}}`, `opencode.json: lsp.x.extensions: missing: a server that is not built in needs extensions (or filenames)`},
		{`{"lsp": {"x": {"extensions": [".x"]}}}`, `opencode.json: lsp.x.command: missing: a server that is not built in needs a command`},
		{`{"lsp": {"gopls": {"initialisation": {}}}}`, `opencode.json: lsp.gopls.initialisation: unknown field; did you mean "initialization"?`},
		{`{"lsp": {"typescript": {}, "typescript-language-server": {}}}`,
			`opencode.json: lsp.typescript-language-server: the same server as lsp.typescript`},
		{`{"lsp": {"gopls": {"disabled": 1}}}`, `opencode.json: lsp.gopls.disabled: want true or false, got 1`},
		{"{\n  \"lsp\": {\"a\" 1}\n}", `opencode.json:2:15: invalid JSON: invalid character '1' after object key`},
	}
	for _, tt := range tests {
		err := parseMerge(ParseOpenCode, tt.in, "opencode.json")
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseOpenCode+NewRegistry(%s) = %v,\nwant %s", tt.in, err, tt.want)
		}
	}
}

func parseMerge(parse func([]byte, string) (*File, error), in, name string) error {
	f, err := parse([]byte(in), name)
	if err != nil {
		return err
	}
	_, err = NewRegistry(f)
	return err
}

func TestParseClaudeSample(t *testing.T) {
	name := filepath.Join("testdata", "claude", ".lsp.json")
	f, err := LoadAny(name)
	if err != nil {
		t.Fatalf("LoadAny(%s) = %v", name, err)
	}
	root, _ := filepath.Abs(filepath.Join("testdata", "claude"))
	want := map[string]entryView{
		"go": {
			Server: Server{
				Command: "gopls", Args: []string{"serve"},
				Extensions:            map[string]string{".go": "go"},
				Transport:             "stdio",
				Env:                   map[string]string{"GOFLAGS": "-mod=mod"},
				InitializationOptions: json.RawMessage(`{"usePlaceholders": true}`),
				Settings:              map[string]any{"gopls": map[string]any{"staticcheck": true}},
				StartupTimeout:        Duration(2 * time.Minute),
				ShutdownTimeout:       Duration(3 * time.Second),
				RestartOnCrash:        ptr(true),
				MaxRestarts:           3,
			},
			Fields: []string{"args", "command", "env", "extensions", "initializationOptions", "maxRestarts",
				"restartOnCrash", "settings", "shutdownTimeout", "startupTimeout", "transport"},
			Path: "go",
		},
		"python": {
			Server: Server{
				Command: root + "/bin/pyright-langserver", Args: []string{"--stdio"},
				Extensions: map[string]string{".py": "python", ".pyi": "python"},
			},
			Fields: []string{"args", "command", "extensions"},
			Path:   "python",
		},
	}
	if d := cmp.Diff(want, view(f)); d != "" {
		t.Errorf("LoadAny(%s) mismatch (-want +got):\n%s", name, d)
	}
	r, err := NewRegistry(f)
	if err != nil {
		t.Fatalf("NewRegistry(%s) = %v", name, err)
	}
	if got, want := ids(r.ForPath("/w/a.go")), []string{"go", "gopls"}; !cmp.Equal(got, want) {
		t.Errorf("ForPath(a.go) = %v, want %v", got, want)
	}
}

func TestParseClaudePluginManifest(t *testing.T) {
	name := filepath.Join("testdata", "claude", ".claude-plugin", "plugin.json")
	data := readFile(t, name)
	f, err := ParseClaudeLSP(data, name)
	if err != nil {
		t.Fatalf("ParseClaudeLSP(%s) = %v", name, err)
	}
	root, _ := filepath.Abs(filepath.Join("testdata", "claude"))
	want := map[string]entryView{"rust": {
		Server: Server{Command: root + "/bin/rust-analyzer", Extensions: map[string]string{".rs": "rust"}},
		Fields: []string{"command", "extensions"},
		Path:   "lspServers.rust",
	}}
	if d := cmp.Diff(want, view(f)); d != "" {
		t.Errorf("ParseClaudeLSP(%s) mismatch (-want +got):\n%s", name, d)
	}
}

func TestParseClaudeErrors(t *testing.T) {
	goEntry := func(fields string) string {
		return `{"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}` + fields + `}}`
	}
	tests := []struct{ in, want string }{
		{goEntry(`, "workspaceFolder": "/w"`), `x.lsp.json: go.workspaceFolder: unknown field (known: args, command, env, ` +
			`extensionToLanguage, initializationOptions, loggingConfig, maxRestarts, restartOnCrash, settings, ` +
			`shutdownTimeout, startupTimeout, transport)`},
		{goEntry(`, "transport": "socket"`), `x.lsp.json: go.transport: unknown transport "socket" (want stdio, tcp or unix)`},
		{goEntry(`, "startupTimeout": -5`), `x.lsp.json: go.startupTimeout: negative duration -5ms`},
		{goEntry(`, "maxRestarts": "3"`), `x.lsp.json: go.maxRestarts: want an integer, got "3"`},
		{`{"go": {"command": "gopls", "extensionToLanguage": {"go": "go"}}}`,
			`x.lsp.json: go.extensionToLanguage: extension "go" must start with a dot: ".go"`},
		{`{"go": {"command": "gopls"}}`,
			`x.lsp.json: go.extensionToLanguage: missing: a server that is not built in needs extensions (or filenames)`},
		{`{"go": {"args": ["serve"], "extensionToLanguage": {".go": "go"}}}`,
			`x.lsp.json: go.command: missing: a server that is not built in needs a command`},
		{`{"lspServers": "./.lsp.json"}`, `x.lsp.json: lspServers: a path ("./.lsp.json"): import that file instead`},
		{`{"lspServers": {"go": []}}`, `x.lsp.json: lspServers.go: want an object, got []`},
		{`{"go": {"command": "gopls",}}`, `x.lsp.json:1:28: invalid JSON: invalid character '}' looking for beginning of object key string`},
	}
	for _, tt := range tests {
		err := parseMerge(ParseClaudeLSP, tt.in, "x.lsp.json")
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseClaudeLSP+NewRegistry(%s) = %v,\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestLoadAnyPicksFormat(t *testing.T) {
	f, err := LoadAny(filepath.Join("testdata", "agentlsp.json"))
	if err != nil || f.Servers["zls"] == nil || f.Servers["zls"].Path != "servers.zls" {
		t.Errorf("LoadAny(agentlsp.json) = %v, %v; want the agentlsp schema", f, err)
	}
	dir := t.TempDir()
	tests := []struct{ name, data, path string }{
		{"opencode.json", `{"lsp": {"gopls": {"command": ["gopls", "serve"]}}}`, "lsp.gopls"},
		{"OpenCode.JSONC", `{"lsp": {"gopls": {"command": ["gopls", "serve"],},}} // c`, "lsp.gopls"},
		{"go.lsp.json", `{"gopls": {"command": "gopls", "args": ["serve"]}}`, "gopls"},
		{"my.json", `{"servers": {"gopls": {"command": "gopls", "args": ["serve"]}}}`, "servers.gopls"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		writeFile(t, path, tt.data)
		f, err := LoadAny(path)
		if err != nil {
			t.Errorf("LoadAny(%s) = %v", tt.name, err)
			continue
		}
		e := f.Servers["gopls"]
		if e == nil || e.Path != tt.path || !cmp.Equal(e.Server.Args, []string{"serve"}) || f.Name != path {
			t.Errorf("LoadAny(%s) = %+v; want gopls at %s with args [serve]", tt.name, e, tt.path)
		}
	}
}

func TestLanguageIDFor(t *testing.T) {
	for ext, want := range map[string]string{".ts": "typescript", ".TSX": "typescriptreact", ".vue": "vue",
		".rb": "ruby", ".weird": "weird"} {
		if got := languageIDFor(ext); got != want {
			t.Errorf("languageIDFor(%q) = %q, want %q", ext, got, want)
		}
	}
}
