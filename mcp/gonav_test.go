package mcp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// goplsConfig serves Go with the built-in gopls, whose workspace symbol
// search is limited to the workspace (by default gopls also searches the
// standard library and dependencies, which no test can pin down).
func goplsConfig(t *testing.T) agentlsp.Config {
	t.Helper()
	reg, err := config.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := reg.Get("gopls")
	if !ok {
		t.Fatal("no built-in gopls")
	}
	g.Settings = map[string]any{"gopls": map[string]any{"symbolScope": "workspace"}}
	return agentlsp.Config{Registry: config.RegistryOf(g)}
}

// loc is a location in the editor view.
func loc(path string, line, col, endLine, endCol int) agentlsp.EditorLocation {
	return agentlsp.EditorLocation{Path: path, Line: line, Column: col, EndLine: endLine, EndColumn: endCol}
}

// navCase is one lsp call and its exact structured answer.
type navCase struct {
	name string
	in   mcp.LSPInput
	want mcp.LSPOutput
	text string // the exact text content, when not ""
}

// runNav calls the lsp tool for each case and compares the structured
// content exactly.
func runNav(t *testing.T, c *client, cases []navCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A server that is analysing (pyright after a sync, for a moment)
			// marks its answer as possibly incomplete: ask until it is not.
			var got mcp.LSPOutput
			var text string
			testenv.Eventually(t, callTimeout, "an answer not marked indexing", func() bool {
				got, text = c.lsp(t, tc.in)
				return !got.Indexing
			})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lsp(%+v) structured content mismatch (-want +got):\n%s\ntext:\n%s", tc.in, diff, text)
			}
			if tc.text != "" && text != tc.text {
				t.Errorf("lsp(%+v) text =\n%s\nwant\n%s", tc.in, text, tc.text)
			}
		})
	}
}

// ready waits until the servers have checked the files, so navigation
// answers from a loaded project.
func ready(t *testing.T, c *client, files ...string) {
	t.Helper()
	var out mcp.DiagnosticsOutput
	c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: files}, &out)
	for _, f := range out.Files {
		if f.Status != "fresh" {
			t.Fatalf("diagnostics of %s: status %s (%s), want fresh", f.Path, f.Status, f.Detail)
		}
	}
}

func goItem(name, kind, file string, l agentlsp.EditorLocation) mcp.CallItem {
	return mcp.CallItem{Name: name, Kind: kind, Detail: "example.com/gonav • " + file, Location: l}
}

var (
	goTotal   = goItem("Total", "function", "total.go", loc("total.go", 4, 6, 4, 11))
	goReport  = goItem("Report", "function", "report.go", loc("report.go", 6, 6, 6, 12))
	goSummary = goItem("Summary", "function", "report.go", loc("report.go", 12, 6, 12, 13))
	goArea    = goItem("Area", "function", "shapes.go", loc("shapes.go", 10, 2, 10, 6))
	gopls     = []string{"gopls"}
)

// TestGoplsNavigation: every operation against real gopls gives exactly
// the expected files and 1-based positions. report.go line 7 has
// "héllo 😀" before the call of Total: the emoji is one character but two
// UTF-16 code units, so character 28 is right only if columns count
// characters.
func TestGoplsNavigation(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	ready(t, c, "shapes.go", "total.go", "report.go")
	totalDef := []agentlsp.EditorLocation{loc("total.go", 4, 6, 4, 11)}
	runNav(t, c, []navCase{
		{"definition by symbol", mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.go", Line: 7, Symbol: "Total"},
			mcp.LSPOutput{Operation: mcp.OpDefinition, Servers: gopls, Locations: totalDef},
			"1 definition (gopls):\ntotal.go:4:6  func Total(shapes []Shape) float64 {\n"},
		{"definition by character after emoji", mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.go", Line: 7, Character: 28},
			mcp.LSPOutput{Operation: mcp.OpDefinition, Servers: gopls, Locations: totalDef}, ""},
		{"definition absolute path", mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: c.ws + "/report.go", Line: 13, Character: 9},
			mcp.LSPOutput{Operation: mcp.OpDefinition, Servers: gopls, Locations: totalDef}, ""},
		{"references", mcp.LSPInput{Operation: mcp.OpReferences, FilePath: "total.go", Line: 4, Symbol: "Total"},
			mcp.LSPOutput{Operation: mcp.OpReferences, Servers: gopls, Locations: []agentlsp.EditorLocation{
				loc("report.go", 7, 28, 7, 33), loc("report.go", 13, 9, 13, 14), loc("total.go", 4, 6, 4, 11)}},
			"3 references (gopls):\n" +
				"report.go:7:28  greeting, n := \"héllo 😀\", Total(shapes)\n" +
				"report.go:13:9  return Total([]Shape{Square{Side: 2}, Circle{Radius: 1}})\n" +
				"total.go:4:6  func Total(shapes []Shape) float64 {\n"},
		{"hover", mcp.LSPInput{Operation: mcp.OpHover, FilePath: "report.go", Line: 7, Symbol: "Total"},
			mcp.LSPOutput{Operation: mcp.OpHover, Servers: gopls, Hover: &mcp.Hover{
				Text: "```go\nfunc Total(shapes []Shape) float64\n```\n\n---\n\nTotal adds up the areas of shapes.\n\n\n---\n\n" +
					"[`gonav.Total` on pkg.go.dev](https://pkg.go.dev/example.com/gonav#Total)",
				Range: &agentlsp.EditorLocation{Path: "report.go", Line: 7, Column: 28, EndLine: 7, EndColumn: 33}}},
			"hover at report.go:7:28 (gopls):\n```go\nfunc Total(shapes []Shape) float64\n```\n\n---\n\nTotal adds up the areas of shapes.\n\n\n---\n\n" +
				"[`gonav.Total` on pkg.go.dev](https://pkg.go.dev/example.com/gonav#Total)\n"},
		{"hover by file URI", mcp.LSPInput{Operation: mcp.OpHover, FilePath: paths.URI(c.ws + "/report.go"), Line: 7, Character: 28},
			mcp.LSPOutput{Operation: mcp.OpHover, Servers: gopls, Hover: &mcp.Hover{
				Text: "```go\nfunc Total(shapes []Shape) float64\n```\n\n---\n\nTotal adds up the areas of shapes.\n\n\n---\n\n" +
					"[`gonav.Total` on pkg.go.dev](https://pkg.go.dev/example.com/gonav#Total)",
				Range: &agentlsp.EditorLocation{Path: "report.go", Line: 7, Column: 28, EndLine: 7, EndColumn: 33}}},
			""},
		{"implementations of the interface", mcp.LSPInput{Operation: mcp.OpImplementation, FilePath: "shapes.go", Line: 9, Symbol: "Shape"},
			mcp.LSPOutput{Operation: mcp.OpImplementation, Servers: gopls, Locations: []agentlsp.EditorLocation{
				loc("shapes.go", 14, 6, 14, 12), loc("shapes.go", 24, 6, 24, 12)}}, ""},
		{"implementations of the method", mcp.LSPInput{Operation: mcp.OpImplementation, FilePath: "total.go", Line: 7, Symbol: "Area"},
			mcp.LSPOutput{Operation: mcp.OpImplementation, Servers: gopls, Locations: []agentlsp.EditorLocation{
				loc("shapes.go", 19, 17, 19, 21), loc("shapes.go", 29, 17, 29, 21)}}, ""},
		{"prepare call hierarchy", mcp.LSPInput{Operation: mcp.OpPrepareCalls, FilePath: "total.go", Line: 4, Character: 6},
			mcp.LSPOutput{Operation: mcp.OpPrepareCalls, Servers: gopls, Items: []mcp.CallItem{goTotal}}, ""},
		{"incoming calls", mcp.LSPInput{Operation: mcp.OpIncomingCalls, FilePath: "report.go", Line: 7, Symbol: "Total"},
			mcp.LSPOutput{Operation: mcp.OpIncomingCalls, Servers: gopls, Items: []mcp.CallItem{goTotal}, Calls: []mcp.Call{
				{From: goReport, To: goTotal, Sites: []agentlsp.EditorLocation{loc("report.go", 7, 28, 7, 33)}},
				{From: goSummary, To: goTotal, Sites: []agentlsp.EditorLocation{loc("report.go", 13, 9, 13, 14)}}}},
			"2 calls to Total (gopls):\nfunction Report  report.go:7:28\nfunction Summary  report.go:13:9\n"},
		{"outgoing calls", mcp.LSPInput{Operation: mcp.OpOutgoingCalls, FilePath: "total.go", Line: 4, Symbol: "Total"},
			mcp.LSPOutput{Operation: mcp.OpOutgoingCalls, Servers: gopls, Items: []mcp.CallItem{goTotal}, Calls: []mcp.Call{
				{From: goTotal, To: goArea, Sites: []agentlsp.EditorLocation{loc("total.go", 7, 12, 7, 16)}}}},
			"1 call from Total (gopls):\nfunction Area  total.go:7:12 -> shapes.go:10:2\n"},
	})
}

// TestGoplsSymbols: the outline of a file and a workspace search.
func TestGoplsSymbols(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	ready(t, c, "shapes.go")
	sym := func(name, kind, detail string, depth int, at, whole agentlsp.EditorLocation) mcp.Symbol {
		return mcp.Symbol{Name: name, Kind: kind, Detail: detail, Depth: depth, Location: at, Range: whole}
	}
	ws := func(name, kind string, at agentlsp.EditorLocation) mcp.Symbol {
		return mcp.Symbol{Name: name, Kind: kind, Container: "example.com/gonav", Location: at, Range: at}
	}
	runNav(t, c, []navCase{
		{"document", mcp.LSPInput{Operation: mcp.OpDocumentSymbol, FilePath: "shapes.go"},
			mcp.LSPOutput{Operation: mcp.OpDocumentSymbol, Servers: gopls, Symbols: []mcp.Symbol{
				sym("Shape", "interface", "interface{...}", 0, loc("shapes.go", 9, 6, 9, 11), loc("shapes.go", 9, 6, 11, 2)),
				sym("Area", "method", "func() float64", 1, loc("shapes.go", 10, 2, 10, 6), loc("shapes.go", 10, 2, 10, 16)),
				sym("Square", "struct", "struct{...}", 0, loc("shapes.go", 14, 6, 14, 12), loc("shapes.go", 14, 6, 16, 2)),
				sym("Side", "field", "float64", 1, loc("shapes.go", 15, 2, 15, 6), loc("shapes.go", 15, 2, 15, 14)),
				sym("(Square).Area", "method", "func() float64", 0, loc("shapes.go", 19, 17, 19, 21), loc("shapes.go", 19, 1, 21, 2)),
				sym("Circle", "struct", "struct{...}", 0, loc("shapes.go", 24, 6, 24, 12), loc("shapes.go", 24, 6, 26, 2)),
				sym("Radius", "field", "float64", 1, loc("shapes.go", 25, 2, 25, 8), loc("shapes.go", 25, 2, 25, 16)),
				sym("(Circle).Area", "method", "func() float64", 0, loc("shapes.go", 29, 17, 29, 21), loc("shapes.go", 29, 1, 31, 2)),
			}}, "8 symbols in shapes.go (gopls):\n" +
				"interface Shape  shapes.go:9:6\n" +
				"  method Area  shapes.go:10:2\n" +
				"struct Square  shapes.go:14:6\n" +
				"  field Side  shapes.go:15:2\n" +
				"method (Square).Area  shapes.go:19:17\n" +
				"struct Circle  shapes.go:24:6\n" +
				"  field Radius  shapes.go:25:2\n" +
				"method (Circle).Area  shapes.go:29:17\n"},
		{"workspace", mcp.LSPInput{Operation: mcp.OpWorkspaceSymbol, Query: "Summary"},
			mcp.LSPOutput{Operation: mcp.OpWorkspaceSymbol, Servers: gopls, Symbols: []mcp.Symbol{
				ws("Summary", "function", loc("report.go", 12, 6, 12, 13))}},
			"1 symbol matching \"Summary\" (gopls):\nfunction Summary  report.go:12:6  in example.com/gonav\n"},
	})
}
