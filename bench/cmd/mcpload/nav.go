package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Navigation: every operation of the lsp tool on both languages, each
// asked about a place whose right answer is known from the generated code
// (workspace.go) and never changes during a run. A check lists what the
// answer lacks (missing) and what it holds that cannot be right (extra):
// anything extra is a wrong answer; something missing is wrong unless the
// answer itself says it may be incomplete (a server still indexing, or
// the errors of a server that failed while another answered).

// loc is a location in the editor view of the tools' answers.
type loc struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (l loc) String() string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column) }

// item is a call hierarchy item, a symbol, or a call's end.
type item struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Location loc    `json:"location"`
}

func (it item) String() string { return it.Name + "@" + it.Location.String() }

// lspAnswer is the lsp tool's structured answer, in part (see mcp/lsp.go).
type lspAnswer struct {
	Servers   []string `json:"servers"`
	Indexing  bool     `json:"indexing"`
	Errors    []string `json:"errors"`
	Locations []loc    `json:"locations"`
	Hover     *struct {
		Text string `json:"text"`
	} `json:"hover"`
	Symbols []item `json:"symbols"`
	Items   []item `json:"items"`
	Calls   []struct {
		From  item  `json:"from"`
		To    item  `json:"to"`
		Sites []loc `json:"sites"`
	} `json:"calls"`
}

// flagged reports whether the answer says it may be incomplete.
func (a lspAnswer) flagged() bool { return a.Indexing || len(a.Errors) > 0 }

// navCase is one question and how its answer is checked.
type navCase struct {
	lang, op string
	args     map[string]any
	// check returns what the answer lacks and what it wrongly holds.
	check func(a lspAnswer) (missing, extra []string)
	// unsupported, when set, is text the tool error must hold: the
	// server does not offer the operation, and says so.
	unsupported []string
}

func (n navCase) key() string { return n.lang + "/" + n.op }

// navCases are the questions, nine per language.
func navCases() []navCase {
	return append(goCases(), pyCases()...)
}

func goCases() []navCase {
	mid := goMid
	def := loc{fmt.Sprintf("go/p%d/p%d.go", mid-1, mid-1), runLine, 6}
	file := fmt.Sprintf("go/p%d/p%d.go", mid, mid)
	call := loc{file, callLine, len(fmt.Sprintf("\tv := p%d.", mid-1)) + 1}
	at := func(op string, l loc) map[string]any {
		return map[string]any{"operation": op, "filePath": l.Path, "line": l.Line, "character": l.Column}
	}
	var squares []loc
	for i := range goPackages {
		squares = append(squares, loc{fmt.Sprintf("go/p%d/p%d.go", i, i), squareLine, 6})
	}
	shape := loc{"go/shape/shape.go", 5, 6}
	runItem := item{Name: "Run", Location: def}
	return []navCase{
		{lang: langGo, op: "goToDefinition", args: at("goToDefinition", call), check: locsExactly(def)},
		{lang: langGo, op: "findReferences", args: at("findReferences", call), check: locsExactly(def, call)},
		{lang: langGo, op: "hover", args: at("hover", call), check: hoverHas(fmt.Sprintf("func p%d.Run(x int) int", mid-1))},
		{lang: langGo, op: "documentSymbol", args: map[string]any{"operation": "documentSymbol", "filePath": file},
			check: symbolsInclude(item{Name: "Run", Location: loc{file, runLine, 6}}, item{Name: "helper", Location: loc{file, helperLine, 6}},
				item{Name: "Square", Location: loc{file, squareLine, 6}})},
		{lang: langGo, op: "workspaceSymbol", args: map[string]any{"operation": "workspaceSymbol", "query": "Shape"},
			check: symbolsInclude(item{Name: "Shape", Location: shape})},
		{lang: langGo, op: "goToImplementation", args: at("goToImplementation", shape), check: locsExactly(squares...)},
		{lang: langGo, op: "prepareCallHierarchy", args: at("prepareCallHierarchy", call), check: itemsExactly(runItem)},
		{lang: langGo, op: "incomingCalls", args: at("incomingCalls", call),
			check: callsExactly(false, callEnd{item{Name: "Run", Location: loc{file, runLine, 6}}, []loc{call}})},
		{lang: langGo, op: "outgoingCalls", args: at("outgoingCalls", loc{file, runLine, 6}),
			check: callsExactly(true, callEnd{runItem, []loc{call}},
				callEnd{item{Name: "helper", Location: loc{file, helperLine, 6}}, []loc{{file, callLine + 1, 9}, {file, callLine + 1, 21}}})},
	}
}

func pyCases() []navCase {
	total := loc{"py/shapes.py", 33, 5}
	sym := func(op, path string, line int, name string) map[string]any {
		return map[string]any{"operation": op, "filePath": path, "line": line, "symbol": name}
	}
	totalItem := item{Name: "total", Location: total}
	return []navCase{
		{lang: langPy, op: "goToDefinition", args: sym("goToDefinition", "py/report.py", 8, "total"), check: locsExactly(total)},
		{lang: langPy, op: "findReferences", args: sym("findReferences", "py/shapes.py", 33, "total"),
			check: locsExactly(loc{"py/report.py", 3, 43}, loc{"py/report.py", 8, 31}, loc{"py/report.py", 14, 12}, total)},
		{lang: langPy, op: "hover", args: sym("hover", "py/report.py", 8, "total"), check: hoverHas("def total(shapes: list[Shape]) -> float")},
		{lang: langPy, op: "documentSymbol", args: map[string]any{"operation": "documentSymbol", "filePath": "py/shapes.py"},
			check: symbolsInclude(item{Name: "Shape", Location: loc{"py/shapes.py", 6, 7}}, item{Name: "Square", Location: loc{"py/shapes.py", 13, 7}},
				item{Name: "Circle", Location: loc{"py/shapes.py", 23, 7}}, totalItem)},
		{lang: langPy, op: "workspaceSymbol", args: map[string]any{"operation": "workspaceSymbol", "query": "total"}, check: symbolsInclude(totalItem)},
		{lang: langPy, op: "goToImplementation", args: sym("goToImplementation", "py/shapes.py", 9, "area"),
			unsupported: []string{"no server answered", "textDocument/implementation"}},
		{lang: langPy, op: "prepareCallHierarchy", args: sym("prepareCallHierarchy", "py/shapes.py", 33, "total"), check: itemsExactly(totalItem)},
		{lang: langPy, op: "incomingCalls", args: sym("incomingCalls", "py/shapes.py", 33, "total"),
			check: callsExactly(false, callEnd{item{Name: "report", Location: loc{"py/report.py", 6, 5}}, []loc{{"py/report.py", 8, 31}}},
				callEnd{item{Name: "summary", Location: loc{"py/report.py", 12, 5}}, []loc{{"py/report.py", 14, 12}}})},
		{lang: langPy, op: "outgoingCalls", args: sym("outgoingCalls", "py/report.py", 12, "summary"),
			check: callsExactly(true, callEnd{totalItem, []loc{{"py/report.py", 14, 12}}},
				callEnd{item{Name: "Square", Location: loc{"py/shapes.py", 13, 7}}, []loc{{"py/report.py", 14, 19}}},
				callEnd{item{Name: "Circle", Location: loc{"py/shapes.py", 23, 7}}, []loc{{"py/report.py", 14, 30}}})},
	}
}

// locsExactly wants exactly the locations want (path, line, column).
func locsExactly(want ...loc) func(lspAnswer) ([]string, []string) {
	return func(a lspAnswer) ([]string, []string) {
		return setDiff(strs(want), strs(a.Locations))
	}
}

// itemsExactly wants exactly the items want (name and location).
func itemsExactly(want ...item) func(lspAnswer) ([]string, []string) {
	return func(a lspAnswer) ([]string, []string) { return setDiff(strs(want), strs(a.Items)) }
}

// symbolsInclude wants at least the symbols want (name and location);
// any other symbol may be there too.
func symbolsInclude(want ...item) func(lspAnswer) ([]string, []string) {
	return func(a lspAnswer) ([]string, []string) {
		missing, _ := setDiff(strs(want), strs(a.Symbols))
		return missing, nil
	}
}

// hoverHas wants hover text holding s.
func hoverHas(s string) func(lspAnswer) ([]string, []string) {
	return func(a lspAnswer) ([]string, []string) {
		switch {
		case a.Hover == nil:
			return []string{"hover " + s}, nil
		case !strings.Contains(a.Hover.Text, s):
			return nil, []string{fmt.Sprintf("hover %q without %q", a.Hover.Text, s)}
		}
		return nil, nil
	}
}

// callEnd is the other end of a call (the caller for incomingCalls, the
// callee for outgoingCalls) and the call sites.
type callEnd struct {
	it    item
	sites []loc
}

func (c callEnd) String() string { return fmt.Sprintf("%s at %v", c.it, c.sites) }

// callsExactly wants exactly the calls want: their callers, or their
// callees when outgoing.
func callsExactly(outgoing bool, want ...callEnd) func(lspAnswer) ([]string, []string) {
	return func(a lspAnswer) ([]string, []string) {
		var got []callEnd
		for _, c := range a.Calls {
			end := c.From
			if outgoing {
				end = c.To
			}
			got = append(got, callEnd{item{Name: end.Name, Location: end.Location}, c.Sites})
		}
		return setDiff(strs(want), strs(got))
	}
}

func strs[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// setDiff returns what want has that got lacks, and what got has that
// want lacks.
func setDiff(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}

// navigate asks one question and checks the answer.
func (w *worker) navigate(ctx context.Context, n navCase) result {
	r := result{key: n.key(), file: fmt.Sprint(n.args["filePath"])}
	start := time.Now()
	raw, err := w.c.call(ctx, "lsp", n.args)
	r.d = time.Since(start)
	if n.unsupported != nil {
		return w.c.unsupported(r, err, raw, n.unsupported)
	}
	if err != nil {
		return w.c.failed(r, err)
	}
	var a lspAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return r.with(outcomeWrong, fmt.Sprintf("undecodable answer %s: %v", raw, err))
	}
	missing, extra := n.check(a)
	r.answer = string(raw)
	switch {
	case len(extra) > 0:
		r.wrongKind = r.key + ": holds what is not right"
		return r.with(outcomeWrong, fmt.Sprintf("holds %q, which is not right (and lacks %q)", extra, missing))
	case len(missing) > 0 && a.flagged():
		r.status = "incomplete"
		return r.with(outcomeFlagged, fmt.Sprintf("lacks %q (indexing %v, errors %q)", missing, a.Indexing, a.Errors))
	case len(missing) > 0:
		r.wrongKind = r.key + ": lacks what is known, not flagged incomplete"
		return r.with(outcomeWrong, fmt.Sprintf("lacks %q", missing))
	}
	return r.with(outcomeOK, "")
}
