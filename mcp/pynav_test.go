package mcp_test

import (
	"testing"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/mcp"
)

func pyItem(name, kind, detail string, l agentlsp.EditorLocation) mcp.CallItem {
	return mcp.CallItem{Name: name, Kind: kind, Detail: detail, Location: l}
}

var (
	pyright   = []string{"pyright"}
	pyTotal   = pyItem("total", "function", "(shapes.py)", loc("shapes.py", 33, 5, 33, 10))
	pyReport  = pyItem("report", "function", "(report.py)", loc("report.py", 6, 5, 6, 11))
	pySummary = pyItem("summary", "function", "(report.py)", loc("report.py", 12, 5, 12, 12))
)

// TestPyrightNavigation: the operations pyright offers give exactly the
// expected files and 1-based positions. report.py line 8 has
// "héllo 😀" before the call of total (character 31).
func TestPyrightNavigation(t *testing.T) {
	c := connect(t, "pynav", agentlsp.Config{})
	ready(t, c, "shapes.py", "report.py")
	totalDef := []agentlsp.EditorLocation{loc("shapes.py", 33, 5, 33, 10)}
	runNav(t, c, []navCase{
		{"definition by symbol", mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.py", Line: 8, Symbol: "total"},
			mcp.LSPOutput{Operation: mcp.OpDefinition, Servers: pyright, Locations: totalDef},
			"1 definition (pyright):\nshapes.py:33:5  def total(shapes: list[Shape]) -> float:\n"},
		{"definition by character after emoji", mcp.LSPInput{Operation: mcp.OpDefinition, FilePath: "report.py", Line: 8, Character: 31},
			mcp.LSPOutput{Operation: mcp.OpDefinition, Servers: pyright, Locations: totalDef}, ""},
		{"references", mcp.LSPInput{Operation: mcp.OpReferences, FilePath: "shapes.py", Line: 33, Symbol: "total"},
			mcp.LSPOutput{Operation: mcp.OpReferences, Servers: pyright, Locations: []agentlsp.EditorLocation{
				loc("report.py", 3, 43, 3, 48), loc("report.py", 8, 31, 8, 36), loc("report.py", 14, 12, 14, 17),
				loc("shapes.py", 33, 5, 33, 10)}},
			"4 references (pyright):\n" +
				"report.py:3:43  from shapes import Circle, Shape, Square, total\n" +
				"report.py:8:31  greeting = \"héllo 😀\"; n = total(shapes)\n" +
				"report.py:14:12  return total([Square(2), Circle(1)])\n" +
				"shapes.py:33:5  def total(shapes: list[Shape]) -> float:\n"},
		{"hover", mcp.LSPInput{Operation: mcp.OpHover, FilePath: "report.py", Line: 8, Symbol: "total"},
			mcp.LSPOutput{Operation: mcp.OpHover, Servers: pyright, Hover: &mcp.Hover{
				Text:  "```python\n(function) def total(shapes: list[Shape]) -> float\n```\n---\nAdd up the areas of shapes.",
				Range: &agentlsp.EditorLocation{Path: "report.py", Line: 8, Column: 31, EndLine: 8, EndColumn: 36}}}, ""},
		{"prepare call hierarchy", mcp.LSPInput{Operation: mcp.OpPrepareCalls, FilePath: "shapes.py", Line: 33, Symbol: "total"},
			mcp.LSPOutput{Operation: mcp.OpPrepareCalls, Servers: pyright, Items: []mcp.CallItem{pyTotal}}, ""},
		{"incoming calls", mcp.LSPInput{Operation: mcp.OpIncomingCalls, FilePath: "shapes.py", Line: 33, Symbol: "total"},
			mcp.LSPOutput{Operation: mcp.OpIncomingCalls, Servers: pyright, Items: []mcp.CallItem{pyTotal}, Calls: []mcp.Call{
				{From: pyReport, To: pyTotal, Sites: []agentlsp.EditorLocation{loc("report.py", 8, 31, 8, 36)}},
				{From: pySummary, To: pyTotal, Sites: []agentlsp.EditorLocation{loc("report.py", 14, 12, 14, 17)}}}},
			"2 calls to total (pyright):\nfunction report  report.py:8:31\nfunction summary  report.py:14:12\n"},
		{"outgoing calls", mcp.LSPInput{Operation: mcp.OpOutgoingCalls, FilePath: "report.py", Line: 12, Symbol: "summary"},
			mcp.LSPOutput{Operation: mcp.OpOutgoingCalls, Servers: pyright, Items: []mcp.CallItem{pySummary}, Calls: []mcp.Call{
				{From: pySummary, To: pyItem("total", "function", "(shapes.py) · Workspace", loc("shapes.py", 33, 5, 33, 10)),
					Sites: []agentlsp.EditorLocation{loc("report.py", 14, 12, 14, 17)}},
				{From: pySummary, To: pyItem("Square", "class", "(shapes.py) · Workspace", loc("shapes.py", 13, 7, 13, 13)),
					Sites: []agentlsp.EditorLocation{loc("report.py", 14, 19, 14, 25)}},
				{From: pySummary, To: pyItem("Circle", "class", "(shapes.py) · Workspace", loc("shapes.py", 23, 7, 23, 13)),
					Sites: []agentlsp.EditorLocation{loc("report.py", 14, 30, 14, 36)}}}},
			"3 calls from summary (pyright):\n" +
				"function total  report.py:14:12 -> shapes.py:33:5\n" +
				"class Square  report.py:14:19 -> shapes.py:13:7\n" +
				"class Circle  report.py:14:30 -> shapes.py:23:7\n"},
	})
}

// TestPyrightSymbols: pyright's outline nests parameters and attributes;
// its workspace search is exact on names.
func TestPyrightSymbols(t *testing.T) {
	c := connect(t, "pynav", agentlsp.Config{})
	ready(t, c, "shapes.py", "report.py")
	sym := func(name, kind string, depth int, at, whole agentlsp.EditorLocation) mcp.Symbol {
		return mcp.Symbol{Name: name, Kind: kind, Depth: depth, Location: at, Range: whole}
	}
	same := func(name, kind string, depth int, at agentlsp.EditorLocation) mcp.Symbol {
		return sym(name, kind, depth, at, at)
	}
	area := func(class string, line int) mcp.Symbol {
		at := loc("shapes.py", line, 9, line, 13)
		return mcp.Symbol{Name: "area", Kind: "method", Container: class, Location: at, Range: at}
	}
	runNav(t, c, []navCase{
		{"document", mcp.LSPInput{Operation: mcp.OpDocumentSymbol, FilePath: "shapes.py"},
			mcp.LSPOutput{Operation: mcp.OpDocumentSymbol, Servers: pyright, Symbols: []mcp.Symbol{
				sym("Shape", "class", 0, loc("shapes.py", 6, 7, 6, 12), loc("shapes.py", 6, 1, 10, 34)),
				sym("area", "method", 1, loc("shapes.py", 9, 9, 9, 13), loc("shapes.py", 9, 5, 10, 34)),
				sym("Square", "class", 0, loc("shapes.py", 13, 7, 13, 13), loc("shapes.py", 13, 1, 20, 37)),
				sym("__init__", "method", 1, loc("shapes.py", 16, 9, 16, 17), loc("shapes.py", 16, 5, 17, 25)),
				same("side", "variable", 2, loc("shapes.py", 16, 24, 16, 35)),
				sym("area", "method", 1, loc("shapes.py", 19, 9, 19, 13), loc("shapes.py", 19, 5, 20, 37)),
				same("side", "variable", 1, loc("shapes.py", 17, 14, 17, 18)),
				sym("Circle", "class", 0, loc("shapes.py", 23, 7, 23, 13), loc("shapes.py", 23, 1, 30, 51)),
				sym("__init__", "method", 1, loc("shapes.py", 26, 9, 26, 17), loc("shapes.py", 26, 5, 27, 29)),
				same("radius", "variable", 2, loc("shapes.py", 26, 24, 26, 37)),
				sym("area", "method", 1, loc("shapes.py", 29, 9, 29, 13), loc("shapes.py", 29, 5, 30, 51)),
				same("radius", "variable", 1, loc("shapes.py", 27, 14, 27, 20)),
				sym("total", "function", 0, loc("shapes.py", 33, 5, 33, 10), loc("shapes.py", 33, 1, 35, 41)),
				same("shapes", "variable", 1, loc("shapes.py", 33, 11, 33, 30)),
			}}, ""},
		{"workspace", mcp.LSPInput{Operation: mcp.OpWorkspaceSymbol, Query: "area"},
			mcp.LSPOutput{Operation: mcp.OpWorkspaceSymbol, Servers: pyright, Symbols: []mcp.Symbol{
				area("Shape", 9), area("Square", 19), area("Circle", 29)}},
			"3 symbols matching \"area\" (pyright):\n" +
				"method area  shapes.py:9:9  in Shape\n" +
				"method area  shapes.py:19:9  in Square\n" +
				"method area  shapes.py:29:9  in Circle\n"},
	})
}
