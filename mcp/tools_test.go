package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// schema is the part of a tool's input schema the tests pin down.
type schema struct {
	Required   []string
	Properties map[string]string // name -> JSON type
	Enum       []any             // of operation
	Default    any               // of wait
	Described  bool              // every property has a description
}

func summarize(t *testing.T, s any) schema {
	t.Helper()
	m, ok := s.(map[string]any)
	if !ok || m["type"] != "object" {
		t.Fatalf("input schema = %#v, want an object schema", s)
	}
	var out schema
	for _, r := range m["required"].([]any) {
		out.Required = append(out.Required, r.(string))
	}
	out.Properties = map[string]string{}
	out.Described = true
	for name, p := range m["properties"].(map[string]any) {
		prop := p.(map[string]any)
		typ, _ := prop["type"].(string)
		if typ == "" {
			typ = "null|" + prop["type"].([]any)[1].(string)
		}
		out.Properties[name] = typ
		out.Described = out.Described && prop["description"] != nil
		switch name {
		case "operation":
			out.Enum = prop["enum"].([]any)
		case "wait":
			out.Default = prop["default"]
		}
	}
	return out
}

// TestListTools: the two tools, their input schemas (from the Go types,
// with descriptions) and read-only annotations.
func TestListTools(t *testing.T) {
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf()})
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := false
	readOnly := func(title string) *sdk.ToolAnnotations {
		return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
	}
	want := map[string]struct {
		annotations *sdk.ToolAnnotations
		schema      schema
	}{
		"lsp": {readOnly("Code navigation"), schema{
			Required: []string{"operation"},
			Properties: map[string]string{"operation": "string", "filePath": "string", "line": "integer",
				"character": "integer", "symbol": "string", "query": "string"},
			Enum: []any{"goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol",
				"goToImplementation", "prepareCallHierarchy", "incomingCalls", "outgoingCalls"},
			Described: true,
		}},
		"diagnostics": {readOnly("Diagnostics"), schema{
			Required:   []string{"files"},
			Properties: map[string]string{"files": "null|array", "wait": "null|boolean"},
			Default:    true,
			Described:  true,
		}},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("ListTools = %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if diff := cmp.Diff(w.annotations, tool.Annotations); diff != "" {
			t.Errorf("%s annotations (-want +got):\n%s", tool.Name, diff)
		}
		if diff := cmp.Diff(w.schema, summarize(t, tool.InputSchema)); diff != "" {
			t.Errorf("%s input schema (-want +got):\n%s", tool.Name, diff)
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: description %q, output schema %v: want both", tool.Name, tool.Description, tool.OutputSchema)
		}
	}
}

// TestResultsCapped: an answer keeps at most MaxResults results, sorted,
// and says how many more there were.
func TestResultsCapped(t *testing.T) {
	// The fake server reads its answers when it starts, on the first call:
	// after the workspace exists.
	responses := filepath.Join(t.TempDir(), "responses.json")
	cmd, fargs, env := testenv.FakeServer(t, "--responses", responses)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)})
	var locs []string
	for line := 9; line >= 0; line-- {
		for char := range 15 {
			locs = append(locs, fmt.Sprintf(`{"uri":"file://%s/total.go","range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}`,
				c.ws, line, char, line, char+1))
		}
	}
	body := `{"textDocument/references": [` + strings.Join(locs, ",") + `]}`
	if err := os.WriteFile(responses, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, text := c.lsp(t, mcp.LSPInput{Operation: mcp.OpReferences, FilePath: "total.go", Line: 4, Character: 6})
	if len(out.Locations) != mcp.MaxResults || out.More != 50 {
		t.Fatalf("references = %d locations and %d more, want %d and 50", len(out.Locations), out.More, mcp.MaxResults)
	}
	if first, last := out.Locations[0], out.Locations[mcp.MaxResults-1]; first.String() != "total.go:1:1" || last.String() != "total.go:7:10" {
		t.Errorf("references from %v to %v, want from total.go:1:1 to total.go:7:10 (sorted)", first, last)
	}
	if !strings.HasPrefix(text, "100 references (fake):\ntotal.go:1:1  package gonav\n") || !strings.HasSuffix(text, "\n... and 50 more\n") {
		t.Errorf("references text =\n%s", text)
	}
}

// TestAnswerCarriesServerTime: an lsp answer's _meta says how long the
// language server itself took (here at least the 30 ms the fake waits
// before answering), so a client can tell the server's time from
// agentlsp's.
func TestAnswerCarriesServerTime(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t, "--delay", "textDocument/hover=30ms")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)})
	start := time.Now()
	res := c.call(t, "lsp", mcp.LSPInput{Operation: mcp.OpHover, FilePath: "total.go", Line: 4, Character: 6})
	took := time.Since(start)
	if res.IsError {
		t.Fatalf("hover failed: %s", resultText(t, res))
	}
	ms, ok := res.Meta[mcp.ServerTimeMeta].(float64)
	if !ok {
		t.Fatalf("_meta = %v, want %s in milliseconds", res.Meta, mcp.ServerTimeMeta)
	}
	if server := time.Duration(ms * float64(time.Millisecond)); server < 30*time.Millisecond || server > took {
		t.Errorf("server time %v; want at least the fake's 30ms and at most the call's %v", server, took)
	}
}
