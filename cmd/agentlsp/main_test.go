package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main. With mainEnv set, the test binary is
// the agentlsp command, for tests that need it as a real process (signals);
// the marker is dropped so that the servers it starts are not commands too.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Unsetenv(mainEnv)
		main()
	}
	testenv.MainWith(m, runDir)
}

// mainEnv, set to 1, makes the test binary run main (the agentlsp command)
// instead of the tests; see TestMain.
const mainEnv = "AGENTLSP_CMD_TEST_MAIN"

// runTimeout bounds one command in the tests: real servers take seconds
// on their first start.
const runTimeout = 3 * time.Minute

// cli runs the command line args and returns its stdout, stderr and exit
// status.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	err := run(ctx, args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), exitCode(err)
}

// wantExit fails t unless code is want, showing the output.
func wantExit(t *testing.T, args []string, code, want int, stdout, stderr string) {
	t.Helper()
	if code != want {
		t.Fatalf("agentlsp %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
}

// writeFile writes a file under dir.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeConfig writes an agentlsp configuration with one server, "fake",
// the fake language server with flags, serving .fk files, and returns its
// path.
func fakeConfig(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	cmd, args, env := testenv.FakeServer(t, flags...)
	return serverConfig(t, dir, map[string]any{"command": cmd, "args": args, "env": env})
}

// serverConfig writes a configuration with the server "fake" (serving .fk
// files, no restart, short timeouts) defined by entry over the defaults.
func serverConfig(t *testing.T, dir string, entry map[string]any) string {
	t.Helper()
	def := map[string]any{"extensions": map[string]string{".fk": "fake"}, "restartOnCrash": false,
		"startupTimeout": "20s", "shutdownTimeout": "2s"}
	for k, v := range entry {
		def[k] = v
	}
	b, err := json.Marshal(map[string]any{"servers": map[string]any{"fake": def}})
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, t.TempDir(), "agentlsp.json", string(b))
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"--help"}, {"-h"}} {
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, 0, stdout, stderr)
		for _, want := range []string{"Usage: agentlsp <command>", "check", "query", "servers", "mcp", "--workspace"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("agentlsp %v: usage lacks %q:\n%s", args, want, stdout)
			}
		}
		if stderr != "" {
			t.Errorf("agentlsp %v: stderr = %q, want nothing", args, stderr)
		}
	}
}

func TestSubcommandHelp(t *testing.T) {
	flags := map[string][]string{
		"check":   {"--json", "--severity LEVEL", "--timeout D", "FILE..."},
		"query":   {"--symbol NAME", "--query Q", "--json", "FILE:LINE:COL", "definition", "goToDefinition", "outgoingCalls"},
		"servers": {"--json", "--probe", "--timeout D"},
		"mcp":     {"stdin and stdout"},
	}
	for cmd, own := range flags {
		want := append(own, "Usage: agentlsp "+cmd, "--workspace DIR", "--config FILE", "--log-level LEVEL")
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			stdout, stderr, code := cli(t, args...)
			wantExit(t, args, code, 0, stdout, stderr)
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("agentlsp %s: help lacks %q:\n%s", strings.Join(args, " "), w, stdout)
				}
			}
		}
	}
}

func TestBadUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"frobnicate"}, `agentlsp: unknown command "frobnicate"`},
		{[]string{"--workspace", ".", "check", "a.go"}, "agentlsp: flag --workspace before the command: flags go after it"},
		{[]string{"help", "frobnicate"}, `agentlsp: unknown command "frobnicate"`},
		{[]string{"check"}, "agentlsp check: no FILE given\nRun 'agentlsp check --help' for usage.\n"},
		{[]string{"check", "--bogus", "a.go"}, "agentlsp check: flag provided but not defined: -bogus"},
		{[]string{"check", "--severity", "fatal", "a.go"}, `invalid --severity "fatal": want error, warning, info or hint`},
		{[]string{"check", "--timeout", "soon", "a.go"}, `invalid value "soon" for flag -timeout`},
		{[]string{"check", "--log-level", "loud", "a.go"}, `invalid --log-level "loud"`},
		{[]string{"query"}, "agentlsp query: no OP given"},
		{[]string{"query", "jump", "main.go:1:1"}, `unknown operation "jump": want one of definition, references`},
		{[]string{"query", "definition", "main.go"}, `malformed position "main.go": want FILE:LINE:COL`},
		{[]string{"query", "definition", "main.go:3"}, `malformed position "main.go:3"`},
		{[]string{"query", "definition", "main.go:0:1"}, `malformed position "main.go:0:1"`},
		{[]string{"query", "definition", "main.go:x:1"}, `malformed position "main.go:x:1"`},
		{[]string{"query", "hover", "a.go:1:1", "b.go:1:1"}, "hover takes one FILE:LINE:COL, got 2 arguments"},
		{[]string{"query", "documentSymbol"}, "documentSymbol takes one FILE, got 0 arguments"},
		{[]string{"query", "workspaceSymbol", "main.go"}, `workspaceSymbol takes no FILE (use --query Q), got "main.go"`},
		{[]string{"query", "definition", "main.go:1:1", "--query", "x"}, "--query is for workspaceSymbol only"},
		{[]string{"query", "workspaceSymbol"}, "workspaceSymbol needs --query Q: a name or part of one"},
		{[]string{"query", "workspaceSymbol", "--query", " "}, "workspaceSymbol needs --query Q: a name or part of one"},
		{[]string{"servers", "extra"}, `unexpected argument "extra": servers takes no arguments`},
		{[]string{"mcp", "extra"}, `unexpected argument "extra": mcp takes no arguments`},
	}
	for _, tt := range tests {
		stdout, stderr, code := cli(t, tt.args...)
		wantExit(t, tt.args, code, exitUsage, stdout, stderr)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("agentlsp %s: stderr = %q, want it to contain %q", strings.Join(tt.args, " "), stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("agentlsp %s: stdout = %q, want nothing", strings.Join(tt.args, " "), stdout)
		}
	}
}

func TestBadWorkspaceAndConfig(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.json", `{"servers": {"gopls": {"comand": "x"}}}`)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--workspace", filepath.Join(dir, "missing"), "a.go"}, "agentlsp: workspace "},
		{[]string{"check", "--workspace", dir, "--config", bad, "a.go"}, `comand`},
		{[]string{"servers", "--workspace", dir, "--config", filepath.Join(dir, "none.json")}, "no such file"},
	}
	for _, tt := range tests {
		stdout, stderr, code := cli(t, tt.args...)
		wantExit(t, tt.args, code, exitFailure, stdout, stderr)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("agentlsp %s: stderr = %q, want it to contain %q", strings.Join(tt.args, " "), stderr, tt.want)
		}
	}
}

func TestParseFilePos(t *testing.T) {
	tests := []struct {
		in          string
		colOptional bool
		path        string
		line, col   int
		bad         bool
	}{
		{in: "main.go:11:14", path: "main.go", line: 11, col: 14},
		{in: "dir/a:b.go:2:3", path: "dir/a:b.go", line: 2, col: 3},
		{in: "x:1:2:3", path: "x:1", line: 2, col: 3},
		{in: "main.go:11", colOptional: true, path: "main.go", line: 11, col: 1},
		{in: "main.go:11:5", colOptional: true, path: "main.go", line: 11, col: 5},
		{in: "main.go:11", bad: true},
		{in: "main.go", bad: true},
		{in: ":1:2", bad: true},
		{in: "main.go:1:0", bad: true},
		{in: "main.go:-1:2", bad: true},
	}
	for _, tt := range tests {
		path, line, col, err := parseFilePos(tt.in, tt.colOptional)
		if tt.bad {
			if err == nil {
				t.Errorf("parseFilePos(%q) = %q, %d, %d, want an error", tt.in, path, line, col)
			}
			continue
		}
		if err != nil || path != tt.path || line != tt.line || col != tt.col {
			t.Errorf("parseFilePos(%q, %v) = %q, %d, %d, %v, want %q, %d, %d", tt.in, tt.colOptional, path, line, col, err, tt.path, tt.line, tt.col)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	fs := newFlagSet("x", "x", "")
	j := fs.Bool("json", false, "")
	pos, err := parseInterspersed(fs.FlagSet, []string{"hover", "--json", "a.go:1:2", "--", "--not-a-flag"})
	if err != nil || !*j {
		t.Fatalf("parseInterspersed = %v, json %v", err, *j)
	}
	if diff := cmp.Diff([]string{"hover", "a.go:1:2", "--not-a-flag"}, pos); diff != "" {
		t.Errorf("positional arguments (-want +got):\n%s", diff)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errFound, 1},
		{usageErrorf("check", "x"), 2},
		{failure(errors.New("x")), 3},
		{errors.New("x"), 3},
		{failure(context.Canceled), 130},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
