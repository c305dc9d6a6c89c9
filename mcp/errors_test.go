package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// errCase is a tool call that must fail as a tool error whose text
// contains every fragment.
type errCase struct {
	name  string
	tool  string
	args  any
	texts []string
}

// runErrors makes each call, checks the tool error, and checks after each
// that the server still answers.
func runErrors(t *testing.T, c *client, cases []errCase, alive func(t *testing.T)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.call(t, tc.tool, tc.args)
			text := resultText(t, res)
			if !res.IsError {
				t.Fatalf("%s(%+v) = %q, want a tool error", tc.tool, tc.args, text)
			}
			for _, want := range tc.texts {
				if !strings.Contains(text, want) {
					t.Errorf("%s(%+v) error = %q, want it to contain %q", tc.tool, tc.args, text, want)
				}
			}
			alive(t)
		})
	}
}

type args = map[string]any

// TestInputErrors: bad input is a tool error naming the problem, never a
// protocol error, and the server keeps serving.
func TestInputErrors(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	ready(t, c, "total.go")
	os.Mkdir(filepath.Join(c.ws, "dir.go"), 0o755)
	os.WriteFile(filepath.Join(c.ws, "notes.txt"), []byte("notes\n"), 0o644)
	alive := func(t *testing.T) {
		out, _ := c.lsp(t, mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.go", Line: 13, Symbol: "Total"})
		if len(out.Locations) != 1 {
			t.Errorf("after the error: definition = %+v, want one location", out)
		}
	}
	def := func(path string, line, char int, symbol string) args {
		return args{"operation": "goToDefinition", "filePath": path, "line": line, "character": char, "symbol": symbol}
	}
	runErrors(t, c, []errCase{
		{"unknown operation", "lsp", args{"operation": "rename", "filePath": "total.go", "line": 4, "character": 6},
			[]string{"operation", "rename"}},
		{"missing operation", "lsp", args{"filePath": "total.go"}, []string{"operation"}},
		{"unknown argument", "lsp", args{"operation": "hover", "file": "total.go"}, []string{"file"}},
		{"missing file", "lsp", args{"operation": "hover", "line": 4, "character": 6}, []string{"filePath is required for hover"}},
		{"missing line", "lsp", args{"operation": "hover", "filePath": "total.go"}, []string{"line is required for hover", "1-based"}},
		{"missing character", "lsp", args{"operation": "hover", "filePath": "total.go", "line": 4},
			[]string{"character is required for hover", "or give symbol"}},
		{"missing query", "lsp", args{"operation": "workspaceSymbol"}, []string{"query is required for workspaceSymbol"}},
		{"query too long", "lsp", args{"operation": "workspaceSymbol", "query": strings.Repeat("x", 2000)},
			[]string{"query is 2000 characters", "at most 1024"}},
		{"outside the workspace", "lsp", def("../outside.go", 1, 1, ""), []string{"path outside the workspace", "../outside.go"}},
		{"absolute outside", "lsp", def("/etc/passwd", 1, 1, ""), []string{"path outside the workspace", "/etc/passwd"}},
		{"file not found", "lsp", def("missing.go", 1, 1, ""), []string{"file does not exist", "missing.go"}},
		{"directory", "lsp", def("dir.go", 1, 1, ""), []string{"is a directory"}},
		{"no server", "lsp", def("notes.txt", 1, 1, ""), []string{"no language server for this file", "notes.txt"}},
		{"past the end of the line", "lsp", def("total.go", 4, 80, ""), []string{"total.go", "column 80 is past the end of line 4"}},
		{"past the end of the file", "lsp", def("total.go", 99, 1, ""), []string{"total.go", "line 99 is past the end of the file"}},
		{"symbol not on the line", "lsp", def("total.go", 4, 0, "Nope"), []string{"total.go:4", `symbol "Nope" not found`}},
		{"symbol past the end of the file", "lsp", def("total.go", 99, 0, "Total"), []string{"total.go", "line 99"}},
		{"server refuses", "lsp", args{"operation": "incomingCalls", "filePath": "shapes.go", "line": 15, "symbol": "Side"},
			[]string{"incomingCalls", "Side is not a function"}},
		{"no files", "diagnostics", args{"files": []string{}}, []string{"files is empty"}},
		{"missing files", "diagnostics", args{}, []string{"files"}},
		{"no file can be checked", "diagnostics", args{"files": []string{"missing.go", "../x.go"}},
			[]string{"file does not exist: missing.go", "path outside the workspace: ../x.go"}},
		{"too many files", "diagnostics", args{"files": make([]string, 51)}, []string{"51 files, at most 50"}},
	}, alive)
}

// fakeConfig serves .go files with the fake language server, which never
// answers hover and references.
func fakeConfig(t *testing.T, requestTimeout time.Duration) agentlsp.Config {
	cmd, fargs, env := testenv.FakeServer(t, "--hang-on", "textDocument/hover", "--hang-on", "textDocument/references")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}, RequestTimeout: config.Duration(requestTimeout)}
	return agentlsp.Config{Registry: config.RegistryOf(fake)}
}

// fakeAlive checks that the server still answers with the fake.
func fakeAlive(c *client) func(t *testing.T) {
	return func(t *testing.T) {
		out, text := c.lsp(t, mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "total.go", Line: 4, Symbol: "Total"})
		if len(out.Servers) != 1 || out.Servers[0] != "fake" || text != "no definition found (fake)\n" {
			t.Errorf("after the error: definition = %+v %q, want no definition from fake", out, text)
		}
	}
}

func at(op string) args {
	return args{"operation": op, "filePath": "total.go", "line": 4, "character": 6}
}

// TestTimeouts: a server that does not answer within its request timeout,
// or within the call timeout, is a tool error; the server keeps serving.
//
// Each waits first for the fake to run: under load its start took longer
// than the 500 ms request timeout, and the hover was answered "still
// starting" instead of timing out at the server.
func TestTimeouts(t *testing.T) {
	c := connect(t, "gonav", fakeConfig(t, 500*time.Millisecond))
	ready(t, c, "total.go")
	runErrors(t, c, []errCase{
		{"server request timeout", "lsp", at("hover"), []string{"hover", "request timed out", "textDocument/hover"}},
	}, fakeAlive(c))
	c = connect(t, "gonav", fakeConfig(t, 0), mcp.WithCallTimeout(time.Second))
	// The 1 s call timeout bounds ready's call too: the fake is started
	// first, without it (at a load average of 14 its start took over 1 s).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.rt.Probe(ctx); err != nil {
		t.Fatalf("starting the fake: %v", err)
	}
	ready(t, c, "total.go")
	runErrors(t, c, []errCase{
		{"call timeout", "lsp", at("findReferences"), []string{"findReferences", "timed out after 1s", "did not answer in time"}},
	}, fakeAlive(c))
}

// TestServerBroken: a server that cannot start makes an lsp call a tool
// error that names it and says how to install it. (A diagnostics call
// answers its file server_broken, with the same reason:
// TestDiagnosticsNamesFilesWithoutAServer.)
func TestServerBroken(t *testing.T) {
	ghost := &config.Server{ID: "ghost", Command: filepath.Join(t.TempDir(), "ghost-lsp"), Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}, InstallHint: "install ghost-lsp"}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(ghost)})
	runErrors(t, c, []errCase{
		{"lsp", "lsp", at("goToDefinition"), []string{"server broken", "ghost", "install ghost-lsp"}},
	}, func(t *testing.T) {
		if _, err := c.cs.ListTools(t.Context(), nil); err != nil {
			t.Errorf("after the error: ListTools: %v", err)
		}
	})
}

// TestUnsupportedOperation: pyright offers no implementations.
func TestUnsupportedOperation(t *testing.T) {
	c := connect(t, "pynav", agentlsp.Config{})
	runErrors(t, c, []errCase{
		{"implementation", "lsp", args{"operation": "goToImplementation", "filePath": "shapes.py", "line": 9, "symbol": "area"},
			[]string{"goToImplementation", "no server answered", "textDocument/implementation"}},
	}, func(t *testing.T) {
		out, _ := c.lsp(t, mcp.LSPInput{Operation: mcp.OpHover, FilePath: "shapes.py", Line: 9, Symbol: "area"})
		if out.Hover == nil {
			t.Errorf("after the error: hover = %+v, want some", out)
		}
	})
}

// TestIntegralNumbersAreIntegers: line and character written 13.0 or
// 9e0 are integers, as the input schema's "integer" says (JSON Schema
// counts a number without a fraction as one): a Python client that
// computed them as floats was told "cannot unmarshal number 13.0". A
// fraction is still refused, naming the property.
func TestIntegralNumbersAreIntegers(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	ready(t, c, "total.go")
	var out mcp.LSPOutput
	c.ok(t, "lsp", args{"operation": "goToDefinition", "filePath": "report.go",
		"line": json.RawMessage("13.0"), "character": json.RawMessage("9e0")}, &out)
	if len(out.Locations) != 1 || out.Locations[0].Path != "total.go" {
		t.Errorf("definition at line 13.0, character 9e0 = %+v, want Total's in total.go", out.Locations)
	}
	runErrors(t, c, []errCase{
		{"a fraction", "lsp", args{"operation": "goToDefinition", "filePath": "report.go",
			"line": json.RawMessage("13.5"), "character": 9}, []string{"13.5", "line"}},
	}, func(*testing.T) {})
}
