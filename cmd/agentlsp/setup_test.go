package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/config"
	"github.com/google/go-cmp/cmp"
)

// setupEnv gives a test an empty home and workspace, and the agents'
// environment variables unset.
func setupEnv(t *testing.T) (home, ws string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	return home, ws
}

func executable(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// decodeConfig decodes a JSON, JSONC or TOML configuration file.
func decodeConfig(t *testing.T, file string) map[string]any {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".toml") {
		doc, err := decodeTOML(file, text)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", file, err, text)
		}
		return doc
	}
	var doc map[string]any
	if err := json.Unmarshal(config.BlankJSONC(text, true), &doc); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", file, err, text)
	}
	return doc
}

// setupCase is an agent's configuration file holding other entries.
type setupCase struct {
	agent    string
	args     []string
	file     string // relative to the workspace, or to home with "~/"
	existing string
	keep     []string // text that must stay, in this order
	entry    []string // the keys to the entry
	want     map[string]any
}

func setupCases(exe, ws string) []setupCase {
	args := []any{"mcp", "--workspace", ws}
	return []setupCase{{
		agent: "claude", file: ".mcp.json",
		existing: "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"npx\", \"args\": [\"-y\", \"x\"], \"env\": {\"K\": \"v\"}}\n  },\n  \"zzz\": 1,\n  \"aaa\": true\n}\n",
		keep:     []string{`"other": {"command": "npx", "args": ["-y", "x"], "env": {"K": "v"}}`, `"zzz": 1`, `"aaa": true`},
		entry:    []string{"mcpServers", "agentlsp"},
		want:     map[string]any{"command": exe, "args": args},
	}, {
		agent: "claude", args: []string{"--global"}, file: "~/.claude.json",
		existing: `{"numStartups": 3, "projects": {"/p": {"mcpServers": {}}}, "mcpServers": {"a": {"command": "a"}}}`,
		keep:     []string{`{"numStartups": 3, "projects": {"/p": {"mcpServers": {}}}, "mcpServers": {"a": {"command": "a"}`},
		entry:    []string{"mcpServers", "agentlsp"},
		want:     map[string]any{"command": exe, "args": []any{"mcp"}},
	}, {
		agent: "codex", file: "~/.codex/config.toml",
		existing: "# my settings\nmodel = \"o3\" # the model\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n\n[profiles.fast]\nmodel = \"mini\"\n",
		keep:     []string{"# my settings\nmodel = \"o3\" # the model\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n\n[profiles.fast]\nmodel = \"mini\"\n"},
		entry:    []string{"mcp_servers", "agentlsp"},
		want:     map[string]any{"command": exe, "args": []any{"mcp"}},
	}, {
		agent: "opencode", file: "opencode.json",
		existing: "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // servers\n  \"mcp\": {\n    \"jira\": {\"type\": \"remote\", \"url\": \"https://jira\"}, // ours\n  },\n  \"lsp\": {\"gopls\": {\"disabled\": true}},\n}\n",
		keep:     []string{`"$schema"`, "// servers", `"jira": {"type": "remote", "url": "https://jira"}, // ours`, `"lsp": {"gopls": {"disabled": true}},`},
		entry:    []string{"mcp", "agentlsp"},
		want:     map[string]any{"type": "local", "command": append([]any{exe}, args...), "enabled": true},
	}, {
		agent: "cursor", file: ".cursor/mcp.json",
		existing: "{\n\t\"mcpServers\": {\n\t\t\"github\": {\n\t\t\t\"url\": \"https://gh\"\n\t\t}\n\t}\n}\n",
		keep:     []string{"{\n\t\"mcpServers\": {\n\t\t\"github\": {\n\t\t\t\"url\": \"https://gh\"\n\t\t},\n\t\t\"agentlsp\": {\n\t\t\t\"command\""},
		entry:    []string{"mcpServers", "agentlsp"},
		want:     map[string]any{"command": exe, "args": args},
	}}
}

func (c setupCase) path(home, ws string) string {
	if rest, ok := strings.CutPrefix(c.file, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return filepath.Join(ws, c.file)
}

func TestSetupMergesAndIsIdempotent(t *testing.T) {
	exe := executable(t)
	for i, probe := range setupCases(exe, "") {
		t.Run(probe.agent+strings.Join(probe.args, ""), func(t *testing.T) {
			home, ws := setupEnv(t)
			c := setupCases(exe, ws)[i]
			file := c.path(home, ws)
			writeFile(t, filepath.Dir(file), filepath.Base(file), c.existing)
			before := decodeConfig(t, file)
			args := append([]string{"setup", c.agent, "--workspace", ws}, c.args...)
			if len(c.args) > 0 || c.agent == "codex" { // a global entry pinned only on request
				args = append([]string{"setup", c.agent}, c.args...)
				t.Chdir(ws)
			}
			stdout, stderr, code := cli(t, args...)
			wantExit(t, args, code, exitOK, stdout, stderr)
			if !strings.Contains(stdout, "wrote "+strings.Join(c.entry, ".")+" in "+file) {
				t.Errorf("stdout = %q, want it to say it wrote the entry in %s", stdout, file)
			}
			after := decodeConfig(t, file)
			if d := cmp.Diff(c.want, lookup(after, c.entry)); d != "" {
				t.Errorf("entry in %s (-want +got):\n%s", file, d)
			}
			if d := cmp.Diff(without(before, c.entry, nil), without(after, c.entry, []string{"command", "args", "type", "enabled"})); d != "" {
				t.Errorf("other settings of %s changed (-before +after):\n%s", file, d)
			}
			text := readText(t, file)
			for _, k := range c.keep {
				if !strings.Contains(text, k) {
					t.Errorf("%s lost %q:\n%s", file, k, text)
				}
			}
			if got := readText(t, file+".bak"); got != c.existing {
				t.Errorf("backup %s.bak = %q, want the old file %q", file, got, c.existing)
			}

			stdout, stderr, code = cli(t, args...)
			wantExit(t, args, code, exitOK, stdout, stderr)
			if !strings.Contains(stdout, "nothing changed") {
				t.Errorf("second run: stdout = %q, want nothing changed", stdout)
			}
			if again := readText(t, file); again != text {
				t.Errorf("second run changed %s:\n%s\nwant\n%s", file, again, text)
			}
			if got := readText(t, file+".bak"); got != c.existing {
				t.Errorf("second run changed the backup: %q", got)
			}
		})
	}
}

func readText(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetupRefusesBrokenFiles(t *testing.T) {
	tests := []struct {
		agent, file, text, want string
	}{
		{"claude", ".mcp.json", "{\n  \"mcpServers\": {\n    \"x\": 1,,\n  }\n}\n", ".mcp.json:3:12: invalid character ','"},
		{"claude", ".mcp.json", "[1, 2]", ".mcp.json:1:1: the file is not a JSON object"},
		{"cursor", ".cursor/mcp.json", "{\"mcpServers\": {} // no comments in JSON\n}", "mcp.json:1:19: invalid character '/'"},
		{"opencode", "opencode.json", "{\n  // fine\n  \"mcp\": {\n    \"a\": tru\n  }\n}", "opencode.json:4:13: invalid character '\\n' in literal true"},
		{"codex", "~/.codex/config.toml", "model = \"o3\"\n[mcp_servers\ncommand = 1\n", "config.toml:2:13: expected ']' to close table name"},
		{"codex", "~/.codex/config.toml", "[mcp_servers]\nagentlsp = { command = \"old\" }\n", "config.toml:2:1: mcp_servers.agentlsp is an inline value"},
	}
	for _, tt := range tests {
		home, ws := setupEnv(t)
		c := setupCase{file: tt.file}
		file := c.path(home, ws)
		writeFile(t, filepath.Dir(file), filepath.Base(file), tt.text)
		args := []string{"setup", tt.agent, "--workspace", ws}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitFailure, stdout, stderr)
		if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, file) {
			t.Errorf("setup %s on %q: stderr = %q, want the file %s and %q", tt.agent, tt.text, stderr, file, tt.want)
		}
		if got := readText(t, file); got != tt.text {
			t.Errorf("setup %s changed the broken file: %q", tt.agent, got)
		}
		if _, err := os.Stat(file + ".bak"); err == nil {
			t.Errorf("setup %s left a backup of a file it did not change", tt.agent)
		}
	}
}

func TestSetupPrintWritesNothing(t *testing.T) {
	exe := executable(t)
	tests := map[string]string{
		"claude":   `"mcpServers": {`,
		"cursor":   `"mcpServers": {`,
		"opencode": `"type": "local"`,
		"codex":    "[mcp_servers.agentlsp]\ncommand = '" + exe + "'\n",
	}
	for agent, want := range tests {
		home, ws := setupEnv(t)
		args := []string{"setup", agent, "--workspace", ws, "--print", "--shared"}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitOK, stdout, stderr)
		if !strings.Contains(stdout, want) || !strings.Contains(stdout, "--shared") || !strings.Contains(stdout, ws) {
			t.Errorf("setup %s --print: stdout = %q, want the entry with %q, --shared and the workspace", agent, stdout, want)
		}
		if !strings.Contains(stderr, "add this to ") {
			t.Errorf("setup %s --print: stderr = %q, want where the entry goes", agent, stderr)
		}
		for _, dir := range []string{home, ws} {
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("setup %s --print wrote %s in %s", agent, entries[0].Name(), dir)
			}
		}
	}
}

func TestSetupCreatesFiles(t *testing.T) {
	home, ws := setupEnv(t)
	exe := executable(t)
	tests := []struct {
		args     []string
		file     string
		mode     os.FileMode
		dirMode  os.FileMode
		entry    []string
		wantArgs []any
	}{
		{[]string{"cursor", "--workspace", ws}, filepath.Join(ws, ".cursor", "mcp.json"), 0o644, 0o755,
			[]string{"mcpServers", "agentlsp"}, []any{"mcp", "--workspace", ws}},
		{[]string{"cursor", "--global"}, filepath.Join(home, ".cursor", "mcp.json"), 0o600, 0o700,
			[]string{"mcpServers", "agentlsp"}, []any{"mcp", "--workspace", "${workspaceFolder}"}},
		{[]string{"codex", "--workspace", ws}, filepath.Join(home, ".codex", "config.toml"), 0o600, 0o700,
			[]string{"mcp_servers", "agentlsp"}, []any{"mcp", "--workspace", ws}},
		{[]string{"opencode", "--global", "--shared"}, filepath.Join(home, ".config", "opencode", "opencode.json"), 0o600, 0o700,
			[]string{"mcp", "agentlsp"}, nil},
	}
	for _, tt := range tests {
		args := append([]string{"setup"}, tt.args...)
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitOK, stdout, stderr)
		if !strings.Contains(stdout, "created "+tt.file) {
			t.Errorf("agentlsp %s: stdout = %q, want created %s", strings.Join(args, " "), stdout, tt.file)
		}
		fi, err := os.Stat(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		di, _ := os.Stat(filepath.Dir(tt.file))
		if fi.Mode().Perm() != tt.mode || di.Mode().Perm() != tt.dirMode {
			t.Errorf("%s: mode %v in a directory of mode %v, want %v and %v", tt.file, fi.Mode().Perm(), di.Mode().Perm(), tt.mode, tt.dirMode)
		}
		doc := decodeConfig(t, tt.file)
		if tt.wantArgs != nil {
			want := map[string]any{"command": exe, "args": tt.wantArgs}
			if d := cmp.Diff(want, lookup(doc, tt.entry)); d != "" {
				t.Errorf("%s entry (-want +got):\n%s", tt.file, d)
			}
		}
	}
	want := map[string]any{"type": "local", "command": []any{exe, "mcp", "--shared"}, "enabled": true}
	if d := cmp.Diff(want, lookup(decodeConfig(t, tests[3].file), []string{"mcp", "agentlsp"})); d != "" {
		t.Errorf("opencode global entry (-want +got):\n%s", d)
	}
}

func TestSetupUpdatesEntry(t *testing.T) {
	home, ws := setupEnv(t)
	exe := executable(t)
	writeFile(t, ws, ".mcp.json", `{"mcpServers": {"agentlsp": {"command": "/old/agentlsp", "env": {"A": "1"}}}}`)
	writeFile(t, home, ".codex/config.toml", "[mcp_servers.agentlsp]\ncommand = \"/old\" # where it was\nstartup_timeout_sec = 30\n\n[mcp_servers.agentlsp.env]\nA = \"1\"\n")
	for _, agent := range []string{"claude", "codex"} {
		args := []string{"setup", agent, "--workspace", ws}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitOK, stdout, stderr)
	}
	if d := cmp.Diff(map[string]any{"command": exe, "args": []any{"mcp", "--workspace", ws}, "env": map[string]any{"A": "1"}},
		lookup(decodeConfig(t, filepath.Join(ws, ".mcp.json")), []string{"mcpServers", "agentlsp"})); d != "" {
		t.Errorf(".mcp.json entry (-want +got):\n%s", d)
	}
	wantTOML := "[mcp_servers.agentlsp]\ncommand = '" + exe + "' # where it was\nstartup_timeout_sec = 30\nargs = ['mcp', '--workspace', '" + ws + "']\n\n[mcp_servers.agentlsp.env]\nA = \"1\"\n"
	if got := readText(t, filepath.Join(home, ".codex", "config.toml")); got != wantTOML {
		t.Errorf("config.toml =\n%s\nwant\n%s", got, wantTOML)
	}
}

func TestSetupBadUsage(t *testing.T) {
	setupEnv(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"setup"}, "want one agent (claude, codex, opencode or cursor), got 0 arguments"},
		{[]string{"setup", "vim"}, `unknown agent "vim"`},
		{[]string{"setup", "claude", "codex"}, "got 2 arguments"},
	} {
		stdout, stderr, code := cli(t, tt.args...)
		wantExit(t, tt.args, code, exitUsage, stdout, stderr)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("agentlsp %s: stderr = %q, want %q", strings.Join(tt.args, " "), stderr, tt.want)
		}
	}
	args := []string{"setup", "claude", "--workspace", filepath.Join(t.TempDir(), "missing")}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	stdout, stderr, code = cli(t, "setup", "--help")
	wantExit(t, []string{"setup", "--help"}, code, exitOK, stdout, stderr)
	for _, w := range []string{"--shared", "--global", "--print", "~/.codex/config.toml", ".cursor/mcp.json"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("setup --help lacks %q", w)
		}
	}
}

func TestMergeJSONLayout(t *testing.T) {
	entry := jsonObject{{"command", "/bin/a"}, {"args", []string{"mcp"}}}
	path := []string{"mcpServers", "agentlsp"}
	tests := []struct {
		name, in, want string
		jsonc          bool
	}{
		{"empty file", "", "{\n  \"mcpServers\": {\n    \"agentlsp\": {\n      \"command\": \"/bin/a\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", false},
		{"empty object", "{}\n", "{\n  \"mcpServers\": {\n    \"agentlsp\": {\n      \"command\": \"/bin/a\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n", false},
		{"one line", `{"a": 1, "mcpServers": {"b": {}}}`, `{"a": 1, "mcpServers": {"b": {}, "agentlsp": {"command":"/bin/a","args":["mcp"]}}}`, false},
		{"crlf", "{\r\n  \"a\": 1\r\n}\r\n", "{\r\n  \"a\": 1,\r\n  \"mcpServers\": {\r\n    \"agentlsp\": {\r\n      \"command\": \"/bin/a\",\r\n      \"args\": [\r\n        \"mcp\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n", false},
		{"comment after the last member", "{\n  \"a\": 1 // note, with a comma\n}", "{\n  \"a\": 1, // note, with a comma\n  \"mcpServers\": {\n    \"agentlsp\": {\n      \"command\": \"/bin/a\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}", true},
		{"entry replaced in place", "{\"mcpServers\": {\"agentlsp\": {\"command\": \"/old\", \"args\": [\"mcp\"], \"x\": 1}}, \"z\": 0}", "{\"mcpServers\": {\"agentlsp\": {\"command\": \"/bin/a\", \"args\": [\"mcp\"], \"x\": 1}}, \"z\": 0}", false},
		{"not an object entry", "{\"mcpServers\": {\"agentlsp\": null}}", "{\"mcpServers\": {\"agentlsp\": {\n  \"command\": \"/bin/a\",\n  \"args\": [\n    \"mcp\"\n  ]\n}}}", false},
	}
	for _, tt := range tests {
		got, changed, err := mergeJSON("f.json", []byte(tt.in), tt.jsonc, path, entry)
		if err != nil || !changed {
			t.Errorf("%s: mergeJSON = changed %v, %v; want a change", tt.name, changed, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s: mergeJSON(%q) =\n%q\nwant\n%q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSetupWritesThroughSymlink(t *testing.T) {
	home, ws := setupEnv(t)
	real := writeFile(t, t.TempDir(), "claude.json", `{"mcpServers": {}}`)
	link := filepath.Join(home, ".claude.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	args := []string{"setup", "claude", "--global", "--workspace", ws}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link (%v)", link, err)
	}
	if lookup(decodeConfig(t, real), []string{"mcpServers", "agentlsp"}) == nil {
		t.Errorf("the link's target %s has no entry:\n%s", real, readText(t, real))
	}
}

func TestMergeTOMLLayout(t *testing.T) {
	entry := jsonObject{{"command", "/bin/a"}, {"args", []string{"mcp"}}}
	path := []string{"mcp_servers", "agentlsp"}
	tests := []struct{ name, in, want string }{
		{"empty", "", "[mcp_servers.agentlsp]\ncommand = '/bin/a'\nargs = ['mcp']\n"},
		{"no final line break", "a = 1", "a = 1\n\n[mcp_servers.agentlsp]\ncommand = '/bin/a'\nargs = ['mcp']\n"},
		{"dotted keys", "[mcp_servers]\nagentlsp.command = \"/old\" # was\nx.command = \"x\"\n",
			"[mcp_servers]\nagentlsp.command = '/bin/a' # was\nagentlsp.args = ['mcp']\nx.command = \"x\"\n"},
		{"root dotted keys", "mcp_servers.agentlsp.args = [\"mcp\"]\n[t]\n",
			"mcp_servers.agentlsp.args = [\"mcp\"]\nmcp_servers.agentlsp.command = '/bin/a'\n[t]\n"},
		{"crlf", "[mcp_servers.agentlsp]\r\nenv = {}\r\n", "[mcp_servers.agentlsp]\r\nenv = {}\r\ncommand = '/bin/a'\r\nargs = ['mcp']\r\n"},
	}
	for _, tt := range tests {
		got, changed, err := mergeTOML("config.toml", []byte(tt.in), path, entry)
		if err != nil || !changed || string(got) != tt.want {
			t.Errorf("%s: mergeTOML(%q) = %q, %v, %v; want %q", tt.name, tt.in, got, changed, err, tt.want)
		}
	}
	in := "[[mcp_servers]]\ncommand = 1\n"
	if _, _, err := mergeTOML("config.toml", []byte(in), path, entry); err == nil || !strings.Contains(err.Error(), "config.toml: mcp_servers is not a table") {
		t.Errorf("mergeTOML(%q) = %v, want mcp_servers is not a table", in, err)
	}
}
