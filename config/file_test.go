package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// entryView is an Entry without its unexported error-path keys.
type entryView struct {
	Server Server
	Fields []string
	Path   string
}

func view(f *File) map[string]entryView {
	m := map[string]entryView{}
	for id, e := range f.Servers {
		m[id] = entryView{e.Server, e.Fields, e.Path}
	}
	return m
}

func ptr[T any](v T) *T { return &v }

func TestParseSample(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "agentlsp.json"))
	if err != nil {
		t.Fatalf("Load(testdata/agentlsp.json) = %v", err)
	}
	want := map[string]entryView{
		"gopls": {
			Server: Server{
				Args:           []string{"-remote=auto"},
				StartupTimeout: Duration(time.Minute),
				Settings:       map[string]any{"gopls": map[string]any{"staticcheck": true}},
			},
			Fields: []string{"args", "settings", "startupTimeout"},
			Path:   "servers.gopls",
		},
		"pyright": {Server: Server{Disabled: true}, Fields: []string{"disabled"}, Path: "servers.pyright"},
		"pylsp":   {Server: Server{}, Fields: []string{"disabled"}, Path: "servers.pylsp"},
		"zls": {
			Server: Server{
				Command:        "zls",
				Extensions:     map[string]string{".zig": "zig", ".ZON": "zig"},
				RootMarkers:    []string{"build.zig"},
				RequestTimeout: Duration(5 * time.Second),
				RestartOnCrash: ptr(false),
				MaxRestarts:    2,
			},
			Fields: []string{"command", "extensions", "maxRestarts", "requestTimeout", "restartOnCrash", "rootMarkers"},
			Path:   "servers.zls",
		},
	}
	if f.Name != filepath.Join("testdata", "agentlsp.json") {
		t.Errorf("Load(testdata/agentlsp.json).Name = %q, want the path", f.Name)
	}
	if d := cmp.Diff(want, view(f)); d != "" {
		t.Errorf("Load(testdata/agentlsp.json) mismatch (-want +got):\n%s", d)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{`{}`, `{"servers": {}}`} {
		f, err := Parse([]byte(in), "agentlsp.json")
		if err != nil || len(f.Servers) != 0 {
			t.Errorf("Parse(%s) = %v, %v; want no servers, nil", in, f, err)
		}
	}
}

// parseAndMerge runs what a user's file goes through: Parse, then NewRegistry.
func parseAndMerge(in string) error {
	f, err := Parse([]byte(in), "agentlsp.json")
	if err != nil {
		return err
	}
	_, err = NewRegistry(f)
	return err
}

const knownFields = "address, args, checkOnSave, command, configFiles, diagnosticsPull, diagnosticsTimeout, disabled, env, excludeMarkers, extensions, " +
	"filenames, idleTimeout, indexWait, initializationOptions, installHint, loadError, loadStart, maxInFlight, maxMessageSize, maxRestarts, " +
	"openChanged, openForWorkspace, openImporters, openTargets, readyLog, requestTimeout, restartOnCrash, root, rootMarkerPriority, rootMarkers, settings, shutdownTimeout, " +
	"startupTimeout, transport"

func TestValidationErrors(t *testing.T) {
	gopls := func(fields string) string { return `{"servers": {"gopls": {` + fields + `}}}` }
	tests := []struct {
		in, want string
	}{
		{`[]`, `agentlsp.json: want an object, got []`},
		{`{"server": {}}`, `agentlsp.json: server: unknown field; did you mean "servers"?`},
		{`{"servers": []}`, `agentlsp.json: servers: want an object, got []`},
		{`{"servers": {"gopls": null}}`, `agentlsp.json: servers.gopls: want an object, got null`},
		{`{"servers": {"go pls": {}}}`, `agentlsp.json: servers.go pls: invalid server id "go pls" (want letters, digits, '.', '_' or '-')`},
		{gopls(`"comand": "gopls"`), `agentlsp.json: servers.gopls.comand: unknown field; did you mean "command"?`},
		{gopls(`"Command": "gopls"`), `agentlsp.json: servers.gopls.Command: unknown field; did you mean "command"?`},
		{gopls(`"id": "gopls"`), `agentlsp.json: servers.gopls.id: unknown field (known: ` + knownFields + `)`},
		{gopls(`"args": "serve"`), `agentlsp.json: servers.gopls.args: want an array of strings, got "serve"`},
		{gopls(`"args": ["serve", 1]`), `agentlsp.json: servers.gopls.args: want an array of strings, got ["serve",1]`},
		{gopls(`"env": {"A": 1}`), `agentlsp.json: servers.gopls.env: want an object of strings, got {"A":1}`},
		{gopls(`"settings": "x"`), `agentlsp.json: servers.gopls.settings: want an object, got "x"`},
		{gopls(`"disabled": "yes"`), `agentlsp.json: servers.gopls.disabled: want true or false, got "yes"`},
		{gopls(`"maxRestarts": 1.5`), `agentlsp.json: servers.gopls.maxRestarts: want an integer, got 1.5`},
		{gopls(`"readyLog": "^(Found"`), "agentlsp.json: servers.gopls.readyLog: readyLog is not a regular expression: " +
			"error parsing regexp: missing closing ): `^(Found`"},
		{gopls(`"loadError": "(failed"`), "agentlsp.json: servers.gopls.loadError: loadError is not a regular expression: " +
			"error parsing regexp: missing closing ): `(failed`"},
		{gopls(`"loadStart": "[Loading"`), "agentlsp.json: servers.gopls.loadStart: loadStart is not a regular expression: " +
			"error parsing regexp: missing closing ]: `[Loading`"},
		{gopls(`"configFiles": ["../go.work"]`), `agentlsp.json: servers.gopls.configFiles: invalid config file "../go.work" ` +
			`(want a path relative to the project root, with slashes)`},
		{gopls(`"configFiles": ["/go.mod"]`), `agentlsp.json: servers.gopls.configFiles: invalid config file "/go.mod" ` +
			`(want a path relative to the project root, with slashes)`},
		{gopls(`"configFiles": ["[go.mod"]`), `agentlsp.json: servers.gopls.configFiles: invalid config file "[go.mod": lspglob: malformed glob pattern "[go.mod": unclosed '['`},
		{gopls(`"command": ""`), `agentlsp.json: servers.gopls.command: empty command`},
		{gopls(`"command": null`), `agentlsp.json: servers.gopls.command: empty command`},
		{gopls(`"command": " \t"`), `agentlsp.json: servers.gopls.command: empty command`},
		{gopls(`"command": "gopls serve"`), `agentlsp.json: servers.gopls.command: command "gopls serve" contains spaces; ` +
			`commands are never run through a shell: write "command": "gopls", "args": ["serve"]`},
		{gopls(`"command": "/usr/bin/gopls -remote auto"`), `agentlsp.json: servers.gopls.command: command "/usr/bin/gopls -remote auto" contains spaces; ` +
			`commands are never run through a shell: write "command": "/usr/bin/gopls", "args": ["-remote","auto"]`},
		{gopls(`"command": "gopls; rm -rf /"`), `agentlsp.json: servers.gopls.command: command "gopls; rm -rf /" contains ` +
			`the shell metacharacter ';'; commands are never run through a shell`},
		{gopls(`"command": "$HOME/bin/gopls"`), `agentlsp.json: servers.gopls.command: command "$HOME/bin/gopls" contains ` +
			"the shell metacharacter '$'; commands are never run through a shell"},
		{gopls("\"command\": \"`which gopls`\""), "agentlsp.json: servers.gopls.command: command \"`which gopls`\" contains " +
			"the shell metacharacter '`'; commands are never run through a shell"},
		{gopls(`"command": "gopls > log"`), `agentlsp.json: servers.gopls.command: command "gopls > log" contains ` +
			`the shell metacharacter '>'; commands are never run through a shell`},
		{gopls(`"startupTimeout": "-1s"`), `agentlsp.json: servers.gopls.startupTimeout: negative duration -1s`},
		{gopls(`"requestTimeout": -1000`), `agentlsp.json: servers.gopls.requestTimeout: negative duration -1s`},
		{gopls(`"idleTimeout": "soon"`), `agentlsp.json: servers.gopls.idleTimeout: invalid duration "soon" (want for example "30s")`},
		{gopls(`"shutdownTimeout": true`), `agentlsp.json: servers.gopls.shutdownTimeout: invalid duration true (want a string like "30s" or milliseconds)`},
		{gopls(`"maxRestarts": -1`), `agentlsp.json: servers.gopls.maxRestarts: must not be negative, got -1`},
		{gopls(`"maxInFlight": -2`), `agentlsp.json: servers.gopls.maxInFlight: must not be negative, got -2`},
		{gopls(`"maxMessageSize": -3`), `agentlsp.json: servers.gopls.maxMessageSize: must not be negative, got -3`},
		{gopls(`"openTargets": -1`), `agentlsp.json: servers.gopls.openTargets: must not be negative, got -1`},
		{gopls(`"openTargets": 257`), `agentlsp.json: servers.gopls.openTargets: openTargets 257 is more than 256`},
		{gopls(`"openChanged": -1`), `agentlsp.json: servers.gopls.openChanged: must not be negative, got -1`},
		{gopls(`"openChanged": 300`), `agentlsp.json: servers.gopls.openChanged: openChanged 300 is more than 256`},
		{gopls(`"transport": "pipe"`), `agentlsp.json: servers.gopls.transport: unknown transport "pipe" (want stdio, tcp or unix)`},
		{gopls(`"diagnosticsPull": "pull"`), `agentlsp.json: servers.gopls.diagnosticsPull: unknown diagnosticsPull "pull" (want "tsserver", or none)`},
		{gopls(`"transport": "tcp"`), `agentlsp.json: servers.gopls.address: missing: transport "tcp" needs an address`},
		{gopls(`"transport": "unix"`), `agentlsp.json: servers.gopls.address: missing: transport "unix" needs an address`},
		{gopls(`"address": "localhost:4389"`), `agentlsp.json: servers.gopls.address: an address needs transport "tcp" or "unix"`},
		{gopls(`"extensions": {"go": "go"}`), `agentlsp.json: servers.gopls.extensions: extension "go" must start with a dot: ".go"`},
		{gopls(`"extensions": {".d.ts": "typescript"}`), `agentlsp.json: servers.gopls.extensions: invalid extension ".d.ts" ` +
			`(want a dot and a name without dots, slashes or spaces, such as ".ts")`},
		{gopls(`"extensions": {".go": ""}`), `agentlsp.json: servers.gopls.extensions: ".go" has an empty languageId`},
		{gopls(`"extensions": {".C": "cpp", ".c": "c"}`), `agentlsp.json: servers.gopls.extensions: ".C" and ".c" differ only ` +
			`in case (they are matched without regard to case)`},
		{gopls(`"filenames": {"docker/Dockerfile": "dockerfile"}`), `agentlsp.json: servers.gopls.filenames: invalid file name ` +
			`"docker/Dockerfile" (want a base name such as "Dockerfile")`},
		{gopls(`"rootMarkers": ["a/go.mod"]`), `agentlsp.json: servers.gopls.rootMarkers: invalid marker "a/go.mod" (want a file name, not a path)`},
		{gopls(`"excludeMarkers": [""]`), `agentlsp.json: servers.gopls.excludeMarkers: invalid marker "" (want a file name, not a path)`},
		{gopls(`"rootMarkers": ["[go.mod"]`), `agentlsp.json: servers.gopls.rootMarkers: invalid marker "[go.mod": syntax error in pattern`},
		{gopls(`"env": {"A=B": "c"}`), `agentlsp.json: servers.gopls.env: invalid environment variable name "A=B"`},
		{gopls(`"root": "../other"`), `agentlsp.json: servers.gopls.root: root "../other" must be a path inside the workspace, relative to it`},
		{gopls(`"root": "/abs"`), `agentlsp.json: servers.gopls.root: root "/abs" must be a path inside the workspace, relative to it`},
		{`{"servers": {"zls": {"extensions": {".zig": "zig"}}}}`,
			`agentlsp.json: servers.zls.command: missing: a server that is not built in needs a command`},
		{`{"servers": {"zls": {"command": "zls"}}}`,
			`agentlsp.json: servers.zls.extensions: missing: a server that is not built in needs extensions (or filenames)`},
	}
	for _, tt := range tests {
		err := parseAndMerge(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse+NewRegistry(%s) = %v,\nwant %s", tt.in, err, tt.want)
			continue
		}
		var ce *Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &ce) {
			t.Errorf("Parse+NewRegistry(%s) = %#v, want an *Error matching ErrInvalid", tt.in, err)
		}
	}
}

func TestValidInputs(t *testing.T) {
	for _, in := range []string{
		`{"servers": {"gopls": {"command": "/opt/my tools/gopls"}}}`,
		`{"servers": {"gopls": {"transport": "tcp", "address": "127.0.0.1:4389"}}}`,
		`{"servers": {"remote": {"transport": "unix", "address": "/tmp/lsp.sock", "extensions": {".x": "x"}}}}`,
		`{"servers": {"docker2": {"command": "d", "filenames": {"Earthfile": "earthfile"}}}}`,
		`{"servers": {"gopls": {"root": ".", "rootMarkers": ["*.work"], "initializationOptions": null}}}`,
	} {
		if err := parseAndMerge(in); err != nil {
			t.Errorf("Parse+NewRegistry(%s) = %v, want nil", in, err)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	trailing := "{\n  \"servers\": {\n    \"gopls\": {\"command\": \"gopls\",}\n  }\n}\n"
	tests := []struct {
		in, name, want string
	}{
		{trailing, "agentlsp.json", `agentlsp.json:3:34: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{`{"servers": {`, "agentlsp.json", `agentlsp.json:1:13: invalid JSON: unexpected end of JSON input`},
		{"", "agentlsp.json", `agentlsp.json:1:1: invalid JSON: unexpected end of JSON input`},
		{"// a comment\n{\"servers\": {\"gopls\": {\"args\": [\"a\" \"b\"]}}}", "agentlsp.jsonc",
			`agentlsp.jsonc:2:37: invalid JSON: invalid character '"' after array element`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), tt.name)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q, %s) = %v,\nwant %s", tt.in, tt.name, err, tt.want)
		}
	}
	if _, err := Parse([]byte(trailing), "agentlsp.jsonc"); err != nil {
		t.Errorf("Parse(trailing comma, agentlsp.jsonc) = %v, want nil", err)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrInvalid) {
		t.Errorf("Load(missing) = %v, want an fs.ErrNotExist that is not ErrInvalid", err)
	}
}

func TestHandBuiltEntries(t *testing.T) {
	f := &File{Servers: map[string]*Entry{"gopls": {
		Server: Server{StartupTimeout: Duration(-time.Second)}, Fields: []string{"startupTimeout"}, Path: "gopls",
	}}}
	_, err := NewRegistry(f)
	if want := "config: gopls.startupTimeout: negative duration -1s"; err == nil || err.Error() != want {
		t.Errorf("NewRegistry(negative timeout) = %v, want %s", err, want)
	}
	f.Servers["gopls"] = &Entry{Fields: []string{"Command"}, Path: "gopls"}
	_, err = NewRegistry(f)
	if want := `config: gopls.Command: unknown field; did you mean "command"?`; err == nil || err.Error() != want {
		t.Errorf("NewRegistry(unknown field) = %v, want %s", err, want)
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{File: "a.json", Field: "servers.x", Msg: "m"}, "a.json: servers.x: m"},
		{&Error{File: "a.json", Msg: "m"}, "a.json: m"},
		{&Error{File: "a.json", Line: 2, Column: 5, Msg: "m"}, "a.json:2:5: m"},
		{&Error{Field: "x", Msg: "m"}, "config: x: m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("(%#v).Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestDescribeCuts(t *testing.T) {
	long := json.RawMessage(`["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddddddddd"]`)
	if got, want := describe(long), `["aaaaaaaaaa","bbbbbbbbbb","cccccccccc",...`; got != want {
		t.Errorf("describe(%s) = %s, want %s", long, got, want)
	}
}
