package main

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

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// goWorkspace copies test/testdata/gomod (whose main.go calls
// Greeting("agent") on line 11) and writes files over it. It fails the
// test when gopls is not installed.
func goWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	testenv.ServerBinary(t, "gopls")
	ws := testenv.CopyDir(t, "../../test/testdata/gomod")
	for name, text := range files {
		writeFile(t, ws, name, text)
	}
	return ws
}

// brokenMain is the testdata main.go with an undefined name at 11:23.
func brokenMain(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../test/testdata/gomod/main.go")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), `Greeting("agent")`, `Greeting(agent)`, 1)
	if text == string(b) {
		t.Fatal(`testdata main.go no longer calls Greeting("agent")`)
	}
	return text
}

func TestCheckGoplsReportsErrors(t *testing.T) {
	ws := goWorkspace(t, map[string]string{
		"main.go":  brokenMain(t),
		"extra.go": "package main\n\nvar count int = \"many\"\n",
	})
	// Relative and absolute paths; output in argument order.
	args := []string{"check", "--workspace", ws, "--timeout", "60s", filepath.Join(ws, "extra.go"), "main.go"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	want := `extra.go:3:17: error: cannot use "many" (untyped string constant) as int value in variable declaration [compiler/IncompatibleAssign]
main.go:11:23: error: undefined: agent [compiler/UndeclaredName]
`
	if stdout != want || stderr != "" {
		t.Errorf("agentlsp check: stdout\n%s\nstderr\n%s\nwant stdout\n%s\nand no stderr", stdout, stderr, want)
	}
}

func TestCheckGoplsCleanFile(t *testing.T) {
	ws := goWorkspace(t, nil)
	args := []string{"check", "--workspace", ws, "--timeout", "60s", "main.go"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if stdout != "" || stderr != "" {
		t.Errorf("agentlsp check on a clean file: stdout %q, stderr %q, want nothing", stdout, stderr)
	}
}

func TestCheckGoplsJSON(t *testing.T) {
	ws := goWorkspace(t, map[string]string{"main.go": brokenMain(t)})
	args := []string{"check", "--workspace", ws, "--timeout", "60s", "--json", "main.go", "missing.go"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	want := `{
  "files": [
    {
      "path": "main.go",
      "status": "fresh",
      "diagnostics": [
        {
          "line": 11,
          "column": 23,
          "endLine": 11,
          "endColumn": 28,
          "severity": "error",
          "message": "undefined: agent",
          "source": "compiler",
          "code": "UndeclaredName"
        }
      ],
      "more": 0,
      "detail": ""
    },
    {
      "path": "missing.go",
      "status": "error",
      "diagnostics": [],
      "more": 0,
      "detail": "file does not exist: missing.go"
    }
  ],
  "moreFiles": 0
}
`
	if stdout != want {
		t.Errorf("agentlsp check --json: got\n%s\nwant\n%s", stdout, want)
	}
	if stderr != "agentlsp: file does not exist: missing.go\n" {
		t.Errorf("agentlsp check --json: stderr %q", stderr)
	}
}

func TestCheckFilesThatCannotBeChecked(t *testing.T) {
	ws := goWorkspace(t, map[string]string{"notes.txt": "hello\n"})
	outside := writeFile(t, t.TempDir(), "outside.go", "package outside\n")
	tests := []struct {
		file string
		want string
	}{
		{"missing.go", "agentlsp: file does not exist: missing.go\n"},
		{outside, "agentlsp: path outside the workspace: " + outside + " (workspace " + ws + ")\n"},
		{"../x.go", "agentlsp: path outside the workspace: ../x.go (workspace " + ws + ")\n"},
		{"notes.txt", "agentlsp: no language server for this file: notes.txt (configured extensions: "},
		{".", "agentlsp: is a directory, not a file: .\n"},
	}
	for _, tt := range tests {
		args := []string{"check", "--workspace", ws, tt.file}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitFailure, stdout, stderr)
		if stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("agentlsp check %s: stdout %q, stderr %q, want stderr starting %q", tt.file, stdout, stderr, tt.want)
		}
	}
}

func TestCheckPyright(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := testenv.CopyDir(t, "../../test/testdata/pyproj")
	writeFile(t, ws, "main.py", "from util import helper\n\nprint(helper(\"one\"))\n")
	args := []string{"check", "--workspace", ws, "--timeout", "60s", "main.py", "util.py"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	// Pyright indents the second line of its message with two no-break
	// spaces; the line break became a space.
	want := `main.py:3:14: error: Argument of type "Literal['one']" cannot be assigned to parameter "x" of type "int" in function "helper" ` +
		"\u00a0\u00a0" + `"Literal['one']" is not assignable to "int" [Pyright/reportArgumentType]` + "\n"
	if stdout != want || stderr != "" {
		t.Errorf("agentlsp check: stdout\n%s\nstderr\n%s\nwant stdout\n%s", stdout, stderr, want)
	}
}

func TestCheckSeverityAndCaps(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "fine\nx WARN: careful\nERROR: boom\n")
	cfg := fakeConfig(t, ws)
	tests := []struct {
		severity string
		want     string
		code     int
	}{
		{"error", "a.fk:3:1: error: boom [fake/E1]\n", exitFound},
		{"warning", "a.fk:3:1: error: boom [fake/E1]\na.fk:2:3: warning: careful [fake/W1]\n", exitFound},
	}
	for _, tt := range tests {
		args := []string{"check", "--workspace", ws, "--config", cfg, "--severity", tt.severity, "a.fk"}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, tt.code, stdout, stderr)
		if stdout != tt.want || stderr != "" {
			t.Errorf("--severity %s: stdout %q, stderr %q, want stdout %q", tt.severity, stdout, stderr, tt.want)
		}
	}

	writeFile(t, ws, "a.fk", "WARN: only a warning\n")
	args := []string{"check", "--workspace", ws, "--config", cfg, "--severity", "warning", "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr) // warnings do not fail

	flood := fakeConfig(t, ws, "--flood", "25")
	args = []string{"check", "--workspace", ws, "--config", flood, "a.fk"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if n := strings.Count(stdout, "\n"); n != 20 || stderr != "agentlsp: a.fk: 5 more diagnostics not shown\n" {
		t.Errorf("flood: %d lines, stderr %q, want 20 lines and a note of 5 more", n, stderr)
	}
}

func TestCheckSlowServerTimesOut(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: late\n")
	cfg := fakeConfig(t, ws, "--push-delay", "10s")
	args := []string{"check", "--workspace", ws, "--config", cfg, "--timeout", "300ms", "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr) // not checked: not clean
	// not_ready when the wait ended before the server finished starting.
	timeout := strings.HasPrefix(stderr, "agentlsp: a.fk: timeout: fake: timed out after ")
	notReady := strings.HasPrefix(stderr, "agentlsp: a.fk: not_ready: fake: still starting or indexing; timed out after ")
	if stdout != "" || !timeout && !notReady {
		t.Errorf("stdout %q, stderr %q, want a line saying a.fk timed out", stdout, stderr)
	}
}

// TestCheckWaitsForAServerAtWork: past its diagnostics timeout, check
// waits for a server that says it is diagnosing the file (for 3 s, as
// gopls's first diagnosis of a large module takes seconds), or that has
// not answered the pull for it yet (pyright with 79 files open took 3.2 s),
// and prints the file's errors; a server that says nothing, or an explicit
// --timeout, still ends the wait at the timeout.
func TestCheckWaitsForAServerAtWork(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: late\n")
	at := func(flags ...string) string {
		cmd, fargs, env := testenv.FakeServer(t, flags...)
		return serverConfig(t, ws, map[string]any{"command": cmd, "args": fargs, "env": env,
			"diagnosticsTimeout": "1s"})
	}
	working := at("--diagnosing", "--push-delay", "3s")
	args := []string{"check", "--workspace", ws, "--config", working, "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if stdout != "a.fk:1:1: error: late [fake/E1]\n" {
		t.Errorf("stdout %q, want the late error", stdout)
	}

	args = []string{"check", "--workspace", ws, "--config", working, "--timeout", "300ms", "a.fk"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	if stdout != "" || !strings.Contains(stderr, "timed out after ") {
		t.Errorf("with --timeout: stdout %q, stderr %q, want a line saying a.fk timed out", stdout, stderr)
	}

	// A pull-only server that takes 2 s to answer the pull: asked for the
	// file's diagnostics, it is at work on them until it answers.
	pulling := at("--pull", "--no-push", "--delay", "textDocument/diagnostic=2s")
	args = []string{"check", "--workspace", ws, "--config", pulling, "a.fk"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if stdout != "a.fk:1:1: error: late [fake/E1]\n" {
		t.Errorf("a slow pull: stdout %q, want the late error", stdout)
	}

	// The same, the pull provider registered after the handshake (as
	// pyright does), when the file was already sent to the server.
	registering := at("--pull", "--pull-register", "--no-push", "--delay", "textDocument/diagnostic=2s")
	args = []string{"check", "--workspace", ws, "--config", registering, "a.fk"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if stdout != "a.fk:1:1: error: late [fake/E1]\n" {
		t.Errorf("a slow pull registered late: stdout %q, want the late error", stdout)
	}

	silent := at("--push-delay", "10s")
	args = []string{"check", "--workspace", ws, "--config", silent, "a.fk"}
	stdout, stderr, code = cli(t, args...) // its push would come after 10s: the error would be printed
	wantExit(t, args, code, exitFailure, stdout, stderr)
	if stdout != "" || !strings.Contains(stderr, "timed out after ") {
		t.Errorf("a silent server: stdout %q, stderr %q, want a line saying a.fk timed out", stdout, stderr)
	}
}

// TestCheckCrashingServerIsNotClean: a server that crashes on every file
// it is sent, and is restarted each time, never gives diagnostics: the
// file is named as not checked and check fails (it exited 0 before, as if
// the file were clean).
func TestCheckCrashingServerIsNotClean(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: never seen\n")
	cmd, fargs, env := testenv.FakeServer(t, "--crash-after", "3") // initialize, initialized, didOpen
	cfg := serverConfig(t, ws, map[string]any{"command": cmd, "args": fargs, "env": env,
		"restartOnCrash": true, "maxRestarts": 1000})
	args := []string{"check", "--workspace", ws, "--config", cfg, "--timeout", "3s", "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	// A log line may come first: the runtime warns when a write to the
	// crashed server fails, if the crash came before the write.
	said := slices.ContainsFunc(strings.Split(stderr, "\n"), func(l string) bool {
		return strings.HasPrefix(l, "agentlsp: a.fk: ") && strings.Contains(l, "crash")
	})
	if stdout != "" || !said {
		t.Errorf("stdout %q, stderr %q, want a line saying a.fk's server crashed", stdout, stderr)
	}
}

func TestCheckBrokenServer(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: never seen\n")
	cfg := serverConfig(t, ws, map[string]any{"command": filepath.Join(ws, "no-such-server"), "installHint": "build the fake"})
	args := []string{"check", "--workspace", ws, "--config", cfg, "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	for _, want := range []string{"server broken", "fake", "build the fake"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
}

// TestCheckServerThatExitsAtStartSaysWhy: a server that exits at once,
// saying why on stdout rather than stderr (TypeScript 5's tsc started as
// tsgo with --lsp), is reported with what it said. Before, the reason
// was "exit status 1" alone.
func TestCheckServerThatExitsAtStartSaysWhy(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: never seen\n")
	script := `echo "error TS5023: Unknown compiler option '--lsp'."; exit 1`
	cfg := serverConfig(t, ws, map[string]any{"command": "sh", "args": []string{"-c", script}})
	args := []string{"check", "--workspace", ws, "--config", cfg, "--timeout", "10s", "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	if want := "stdout: error TS5023: Unknown compiler option '--lsp'."; !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("stdout %q, stderr %q, want nothing on stdout and the server's words on stderr: %s", stdout, stderr, want)
	}
}

func TestProgressNamesTheServersAwaited(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "ERROR: late\n")
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, NoWatch: true,
		ConfigFile: fakeConfig(t, ws, "--push-delay", "500ms")})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	w := &lockedWriter{w: new(strings.Builder)}
	stop := startProgress(rt, w, 20*time.Millisecond)
	_, err = rt.Session("t").Diagnostics(context.Background(), []string{"a.fk"})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	got := w.w.(*strings.Builder).String()
	if !strings.HasPrefix(got, "agentlsp: waiting for fake (") || !strings.Contains(got, "(indexing)...\n") {
		t.Errorf("progress = %q, want lines such as %q", got, "agentlsp: waiting for fake (indexing)...")
	}
}

// TestCheckOpensEveryFileFirst: check opens every file it is given before
// it waits for any, as `gopls check` loads them all: other.go
// (`//go:build !unix`) makes gopls diagnose the module's windows build too,
// where every kN.go's syscall.Kill is undefined. Before, the files checked
// before other.go was open were printed without that error.
func TestCheckOpensEveryFileFirst(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	ws := t.TempDir()
	writeFile(t, ws, "go.mod", "module builds\n\ngo 1.22\n")
	writeFile(t, ws, "other.go", "//go:build !unix\n\npackage main\n\nfunc other() {}\n")
	args := []string{"check", "--workspace", ws}
	var want strings.Builder
	for i := range 9 { // more than check waits on at once (8)
		name := fmt.Sprintf("k%d.go", i)
		writeFile(t, ws, name, fmt.Sprintf("package main\n\nimport \"syscall\"\n\nfunc kill%d() error { return syscall.Kill(1, 0) }\n", i))
		args = append(args, name)
		fmt.Fprintf(&want, "%s:5:37: error: undefined: syscall.Kill [windows] [compiler/UndeclaredImportedName]\n", name)
	}
	writeFile(t, ws, "main.go", "package main\n\nfunc main() {}\n")
	args = append(args, "other.go")
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if stdout != want.String() {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want.String())
	}
}

// TestCheckNamesEachFileOnce: a file named several ways (relative, with
// "./", absolute, through a symlinked directory) is checked and printed
// once, under the name given first, as the MCP diagnostics tool does.
func TestCheckNamesEachFileOnce(t *testing.T) {
	ws := t.TempDir()
	bad := writeFile(t, ws, "sub/bad.fk", "ERROR: broken\n")
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
	cfg := fakeConfig(t, ws)
	names := []string{"sub/bad.fk", "./sub/bad.fk", bad, "alias/bad.fk", "sub/../sub/bad.fk"}
	args := append([]string{"check", "--workspace", ws, "--config", cfg}, names...)
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if want := "sub/bad.fk:1:1: error: broken [fake/E1]\n"; stdout != want || stderr != "" {
		t.Errorf("stdout %q, stderr %q, want only %q", stdout, stderr, want)
	}
	doc := checkJSONOf(t, append([]string{"check", "--workspace", ws, "--config", cfg, "--json"}, names...))
	if len(doc.Files) != 1 || doc.Files[0].Path != "sub/bad.fk" || len(doc.Files[0].Diagnostics) != 1 {
		t.Errorf("--json files = %+v, want sub/bad.fk once with its one diagnostic", doc.Files)
	}
}

// TestCheckEscapesControlCharacters: a diagnostic message holding
// terminal escapes and other control characters is printed with them
// escaped (a server's text must not drive the terminal), and --json keeps
// the message exact.
func TestCheckEscapesControlCharacters(t *testing.T) {
	ws := t.TempDir()
	msg := "\x1b[31mred\x1b[0m \a\b\x7f \u009b2J\tdone é"
	writeFile(t, ws, "a.fk", "ERROR: "+msg+"\n")
	cfg := fakeConfig(t, ws)
	args := []string{"check", "--workspace", ws, "--config", cfg, "a.fk"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	want := `a.fk:1:1: error: \x1b[31mred\x1b[0m \a\b\x7f \u009b2J` + "\tdone é [fake/E1]\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	doc := checkJSONOf(t, []string{"check", "--workspace", ws, "--config", cfg, "--json", "a.fk"})
	if len(doc.Files) != 1 || len(doc.Files[0].Diagnostics) != 1 || doc.Files[0].Diagnostics[0].Message != msg {
		t.Errorf("--json files = %+v, want a.fk's diagnostic with the message %q", doc.Files, msg)
	}
}

// TestCheckProjectThatDoesNotLoad: the tester's reproductions. A Rust file
// outside any Cargo project (rust-analyzer: "Failed to discover
// workspace") and a Go file of a module whose go.mod is broken (gopls: an
// "Error loading workspace" progress, and only a warning on the file) were
// reported clean, exit 0, with nothing printed: check exits 3 and says why,
// in the server's words.
func TestCheckProjectThatDoesNotLoad(t *testing.T) {
	for _, tc := range []struct {
		server, file, text, project, projectText, said string
	}{
		{"rust-analyzer", "sub/e.rs", "fn main() { let x: i32 = \"s\"; }\n", "", "",
			"sub/e.rs: project_error: rust-analyzer: the server could not load the project: Failed to discover workspace."},
		{"rust-analyzer", "sub/e.rs", "fn main() { let x: i32 = \"s\"; }\n", "Cargo.toml", "[package\nname=\n",
			"sub/e.rs: project_error: rust-analyzer: the server could not load the project: Failed to load workspaces."},
		{"gopls", "m.go", "package main\n\nfunc main() { var x int = \"s\"; _ = x }\n", "go.mod", "module example.com/m\n\ngo 1.21\nrequire (\n",
			"m.go: project_error: gopls: the server could not load the project: Error loading workspace: "},
	} {
		t.Run(tc.server+" "+tc.project, func(t *testing.T) {
			testenv.ServerBinary(t, tc.server)
			ws := t.TempDir()
			writeFile(t, ws, tc.file, tc.text)
			if tc.project != "" {
				writeFile(t, ws, tc.project, tc.projectText)
			}
			args := []string{"check", "--workspace", ws, "--timeout", "60s", tc.file}
			stdout, stderr, code := cli(t, args...)
			wantExit(t, args, code, exitFailure, stdout, stderr)
			if !strings.Contains(stderr, "agentlsp: "+tc.said) {
				t.Errorf("agentlsp check: stderr\n%s\nwant a line beginning %q", stderr, "agentlsp: "+tc.said)
			}
		})
	}
}

// TestCheckEscapesInvisibleCharacters: a server's message and a file name
// holding the characters that make a terminal show text other than it
// is (Trojan Source's bidirectional overrides and isolates, zero-width
// characters, a byte-order mark, a line separator) are printed with
// them escaped; --json keeps both exact. Before, only controls were.
func TestCheckEscapesInvisibleCharacters(t *testing.T) {
	ws := t.TempDir()
	msg := "access \u202e} \u2066admin\u2069 {\u202c zero\u200bwidth \ufeffbom line\u2028sep"
	name := "evil\u202egnp.fk"
	writeFile(t, ws, name, "ERROR: "+msg+"\n")
	cfg := fakeConfig(t, ws)
	args := []string{"check", "--workspace", ws, "--config", cfg, name}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	want := `evil\u202egnp.fk:1:1: error: access \u202e} \u2066admin\u2069 {\u202c zero\u200bwidth \ufeffbom line\u2028sep [fake/E1]` + "\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	doc := checkJSONOf(t, []string{"check", "--workspace", ws, "--config", cfg, "--json", name})
	if len(doc.Files) != 1 || doc.Files[0].Path != name || len(doc.Files[0].Diagnostics) != 1 || doc.Files[0].Diagnostics[0].Message != msg {
		t.Errorf("--json files = %+v, want %q's diagnostic with the message %q", doc.Files, name, msg)
	}
}

// TestCheckFileNameCannotForgeALine: a file whose name holds a newline
// printed it raw, and its name's second line read as a diagnostic of its
// own ("main.fk:1:1: error: forged") to whatever parses the output; the
// newline is escaped now, so each diagnostic is one line. --json keeps
// the name exact.
func TestCheckFileNameCannotForgeALine(t *testing.T) {
	ws := t.TempDir()
	name := "a.fk\nmain.fk:1:1: error: forged [x]\nb.fk"
	writeFile(t, ws, name, "ERROR: real\n")
	cfg := fakeConfig(t, ws)
	args := []string{"check", "--workspace", ws, "--config", cfg, name}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	want := `a.fk\nmain.fk:1:1: error: forged [x]\nb.fk:1:1: error: real [fake/E1]` + "\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q: one line", stdout, want)
	}
	doc := checkJSONOf(t, []string{"check", "--workspace", ws, "--config", cfg, "--json", name})
	if len(doc.Files) != 1 || doc.Files[0].Path != name {
		t.Errorf("--json files = %+v, want %q", doc.Files, name)
	}
}

// checkJSONOf runs a check --json that finds errors and decodes its
// document.
func checkJSONOf(t *testing.T, args []string) checkJSON {
	t.Helper()
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	var doc checkJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	return doc
}
