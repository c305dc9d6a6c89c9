package main

import (
	"strings"
	"testing"
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
