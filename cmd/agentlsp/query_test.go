package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// In test/testdata/gomod/main.go, line 11 is "\tfmt.Println(Greeting(\"agent\"))"
// (31 characters): Greeting starts at column 14 (after a tab and
// "fmt.Println("); it is declared at 6:6 ("func Greeting") and main at 10:6.

// indexingNote is what query writes on stderr for an answer given while a
// server reported work in progress.
const indexingNote = "agentlsp: note: a server was still starting or indexing; the answer may be incomplete\n"

func TestQueryGopls(t *testing.T) {
	ws := goWorkspace(t, nil)
	tests := []struct {
		args []string
		want string // stdout
	}{
		{[]string{"definition", "main.go:11:14"}, "main.go:6:6\n"},
		{[]string{"goToDefinition", "main.go:11:21"}, "main.go:6:6\n"},
		{[]string{"definition", "main.go:11", "--symbol", "Greeting"}, "main.go:6:6\n"},
		{[]string{"references", "main.go:6:6"}, "main.go:6:6\nmain.go:11:14\n"},
		{[]string{"findReferences", "main.go:6:6", "--json"}, `{
  "servers": [
    "gopls"
  ],
  "locations": [
    {
      "path": "main.go",
      "line": 6,
      "column": 6,
      "endLine": 6,
      "endColumn": 14
    },
    {
      "path": "main.go",
      "line": 11,
      "column": 14,
      "endLine": 11,
      "endColumn": 22
    }
  ]
}
`},
		{[]string{"documentSymbol", "main.go"}, "function Greeting main.go:6:6\nfunction main main.go:10:6\n"},
		{[]string{"prepareCallHierarchy", "main.go:6:6"}, "Greeting main.go:6:6\n"},
		{[]string{"incomingCalls", "main.go:6:6"}, "main main.go:10:6\n"},
		// A file:// URI names its file ("file does not exist" before).
		{[]string{"definition", paths.URI(filepath.Join(ws, "main.go")) + ":11:14"}, "main.go:6:6\n"},
		{[]string{"documentSymbol", paths.URI(filepath.Join(ws, "main.go"))}, "function Greeting main.go:6:6\nfunction main main.go:10:6\n"},
	}
	for _, tt := range tests {
		args := append([]string{"query", "--workspace", ws}, tt.args...)
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitOK, stdout, stderr)
		// A fresh gopls may still report work in progress when it answers
		// (on a loaded machine it does): the note says so, the answer
		// must be complete all the same.
		if stdout != tt.want || (stderr != "" && stderr != indexingNote) {
			t.Errorf("agentlsp %s: stdout\n%s\nstderr %q\nwant stdout\n%s", strings.Join(tt.args, " "), stdout, stderr, tt.want)
		}
	}
}

func TestQueryGoplsHoverAndCalls(t *testing.T) {
	ws := goWorkspace(t, nil)
	tests := []struct {
		args []string
		want []string // in stdout
	}{
		{[]string{"hover", "main.go:11:14"}, []string{"```go\nfunc Greeting(name string) string\n```", "Greeting returns the greeting for name."}},
		{[]string{"hover", "main.go:11:14", "--json"}, []string{`"hover": "` + "```go\\nfunc Greeting(name string) string\\n```", `"range": {`}},
		{[]string{"outgoingCalls", "main.go:10", "--symbol", "main"}, []string{"Greeting main.go:6:6\n", "Println "}},
		{[]string{"workspaceSymbol", "--query", "Greeting"}, []string{"function Greeting main.go:6:6\n"}},
	}
	for _, tt := range tests {
		args := append([]string{"query", "--workspace", ws}, tt.args...)
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitOK, stdout, stderr)
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("agentlsp %s: stdout lacks %q:\n%s", strings.Join(tt.args, " "), w, stdout)
			}
		}
	}
}

func TestQueryErrors(t *testing.T) {
	ws := goWorkspace(t, map[string]string{"notes.txt": "hello\n"})
	tests := []struct {
		args []string
		code int
		want string // stderr
	}{
		{[]string{"definition", "main.go:11:99"}, exitUsage,
			"agentlsp query: main.go: column 99 is past the end of line 11 (31 characters)\nRun 'agentlsp query --help' for usage.\n"},
		{[]string{"definition", "main.go:99:1"}, exitUsage,
			"agentlsp query: main.go: line 99 is past the end of the file (12 lines)\n"},
		{[]string{"hover", "main.go:11", "--symbol", "Nope"}, exitUsage,
			`agentlsp query: main.go:11: symbol "Nope" not found in line "\tfmt.Println(Greeting(\"agent\"))"` + "\n"},
		{[]string{"definition", "missing.go:1:1"}, exitFailure, "agentlsp: file does not exist: missing.go\n"},
		{[]string{"hover", "notes.txt:1:1"}, exitFailure, "agentlsp: no language server for this file: notes.txt (configured extensions: "},
		{[]string{"implementation", "main.go:6:6"}, exitFailure, "agentlsp: no server answered: "},
	}
	for _, tt := range tests {
		args := append([]string{"query", "--workspace", ws}, tt.args...)
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, tt.code, stdout, stderr)
		if stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("agentlsp %s: stdout %q, stderr %q, want stderr starting %q", strings.Join(tt.args, " "), stdout, stderr, tt.want)
		}
	}
}

func TestQueryNothingFound(t *testing.T) {
	ws := goWorkspace(t, nil)
	// Line 2 is empty: nothing is defined there.
	args := []string{"query", "--workspace", ws, "definition", "main.go:2:1"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if stdout != "" || stderr != "agentlsp: no definition found\n" {
		t.Errorf("stdout %q, stderr %q, want only %q on stderr", stdout, stderr, "agentlsp: no definition found\n")
	}
}

// TestQueryServerStillStarting: a server that never finishes its
// handshake is still starting when the request's time is up. Nothing
// answered, so nothing says there is no definition: the query fails (3)
// naming the server, in text and in JSON. Before, it printed "no
// definition found" and exited 0.
func TestQueryServerStillStarting(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "a.fk", "hello\n")
	cmd, fargs, env := testenv.FakeServer(t, "--hang-on", "initialize")
	cfg := serverConfig(t, ws, map[string]any{"command": cmd, "args": fargs, "env": env,
		"startupTimeout": "2m", "requestTimeout": "1s"})
	for _, op := range []string{"definition", "hover"} {
		args := []string{"query", "--workspace", ws, "--config", cfg, op, "a.fk:1:1"}
		stdout, stderr, code := cli(t, args...)
		wantExit(t, args, code, exitFailure, stdout, stderr)
		want := "agentlsp: no server answered: still starting: fake (ask again shortly)\n"
		if stdout != "" || stderr != want {
			t.Errorf("agentlsp %s: stdout %q, stderr %q, want only %q on stderr", strings.Join(args[5:], " "), stdout, stderr, want)
		}
	}
	args := []string{"query", "--workspace", ws, "--config", cfg, "--json", "definition", "a.fk:1:1"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	var doc struct {
		Starting  []string `json:"starting"`
		Locations []any    `json:"locations"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !slices.Equal(doc.Starting, []string{"fake"}) {
		t.Errorf("--json: stdout %q (%v), want a document with starting [fake]", stdout, err)
	}
	if !strings.Contains(stderr, "still starting: fake") {
		t.Errorf("--json: stderr %q, want it to name fake as still starting", stderr)
	}
}

// TestQueryTextNotes: what writeText says about an answer, and the exit
// status that goes with it.
func TestQueryTextNotes(t *testing.T) {
	tests := []struct {
		name           string
		res            result
		stdout, stderr string
		fails          bool
	}{
		{"found", result{answer: results.Answer{Servers: []string{"a"}}, lines: []string{"a.go:1:1"}, none: "none"},
			"a.go:1:1\n", "", false},
		{"nothing found", result{answer: results.Answer{Servers: []string{"a"}}, none: "no definition found"},
			"", "agentlsp: no definition found\n", false},
		{"one answered, one starting", result{answer: results.Answer{Servers: []string{"a"}, Starting: []string{"b", "c"}},
			lines: []string{"a.go:1:1"}, none: "none"},
			"a.go:1:1\n", "agentlsp: note: still starting, not in this answer: b, c (ask again shortly)\n", false},
		{"none answered", result{answer: results.Answer{Starting: []string{"b"}}, none: "no definition found"},
			"", "", true},
		{"control characters", result{answer: results.Answer{Servers: []string{"a"}, Errors: []string{"b: \x1b[2Jgone"}},
			lines: []string{"x\x1b[31m\ty\x00\nz"}, block: true},
			`x\x1b[31m` + "\ty" + `\x00` + "\nz\n", `agentlsp: note: b: \x1b[2Jgone` + "\n", false},
		// A record (a location, a symbol) stays one line: a newline in a
		// file name cannot print a line of its own.
		{"a record stays one line", result{answer: results.Answer{Servers: []string{"a"}}, lines: []string{"a.go\nforged.go:1:1"}},
			`a.go\nforged.go:1:1` + "\n", "", false},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if err := tt.res.writeText(&out, &errOut); err != nil {
			t.Fatalf("%s: writeText = %v", tt.name, err)
		}
		if out.String() != tt.stdout || errOut.String() != tt.stderr {
			t.Errorf("%s: writeText wrote %q and %q on stderr, want %q and %q", tt.name, out.String(), errOut.String(), tt.stdout, tt.stderr)
		}
		if err := tt.res.status(); (err != nil) != tt.fails || err != nil && exitCode(err) != exitFailure {
			t.Errorf("%s: status() = %v, want a failure: %v", tt.name, err, tt.fails)
		}
	}
}

// TestQuerySaysWhichFilesAreNotWatched: an answer naming files in
// directories the watcher does not look into (a daemon's, with --shared)
// says so on stderr, and a call hierarchy's answers keep them when merged.
func TestQuerySaysWhichFilesAreNotWatched(t *testing.T) {
	file := "/ws/node_modules/dep/index.d.ts"
	a := results.Answer{Servers: []string{"ts"}, Unwatched: []string{file}}
	merged := mergeAnswers(a, results.Answer{Servers: []string{"ts"}, Unwatched: []string{file}})
	if len(merged.Unwatched) != 1 || merged.Unwatched[0] != file {
		t.Errorf("merged Unwatched = %v, want [%s]", merged.Unwatched, file)
	}
	r := &result{answer: merged, lines: []string{"node_modules/dep/index.d.ts:1:25"}}
	var out, errOut strings.Builder
	if err := r.writeText(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "agentlsp: note: not watched for changes: " + file; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr = %q, want it to contain %q", errOut.String(), want)
	}
}
