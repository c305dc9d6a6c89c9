package mcp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/results"
)

// maxPreview bounds, in characters, the source line shown after a
// location.
const maxPreview = 100

// view converts the runtime's answers to the editor view (relative paths,
// 1-based lines and character columns) and renders them as text for the
// model. It reads each file at most once. Not safe for concurrent use:
// make one per tool call.
type view struct {
	workspace string
	ed        *agentlsp.Editor
	lines     map[string][]string // source lines by path, nil when unreadable
	// serverTime sums the language servers' own time over the answers
	// merged (a call hierarchy asks more than once).
	serverTime time.Duration
}

func newView(rt *agentlsp.Runtime) *view {
	return &view{workspace: rt.Workspace(), ed: rt.Editor(), lines: make(map[string][]string)}
}

// answer starts an output with the answer's summary.
func (v *view) answer(op Operation, a results.Answer) LSPOutput {
	out := LSPOutput{Operation: op}
	v.merge(&out, a)
	return out
}

// merge adds an answer's servers, indexing flag and errors to out.
func (v *view) merge(out *LSPOutput, a results.Answer) {
	if out.Servers == nil {
		out.Servers = []string{}
	}
	for _, s := range a.Servers {
		if !slices.Contains(out.Servers, s) {
			out.Servers = append(out.Servers, s)
		}
	}
	out.Indexing = out.Indexing || a.Indexing
	v.serverTime += a.ServerTime
	out.Errors = append(out.Errors, a.Errors...)
	out.Starting = append(out.Starting, a.Starting...)
	for _, f := range a.Unwatched {
		if rel := v.ed.Rel(f); !slices.Contains(out.Unwatched, rel) {
			out.Unwatched = append(out.Unwatched, rel)
		}
	}
}

// loc converts an LSP range in a file (a path, or a URI for other
// schemes) to the editor view.
func (v *view) loc(path, uri string, r agentlsp.Range) agentlsp.EditorLocation {
	return v.ed.LocationOf(uri, path, r)
}

func (v *view) locations(op Operation, ans *results.LocationsAnswer, err error) (LSPOutput, error) {
	if err != nil {
		return LSPOutput{}, err
	}
	out := v.answer(op, ans.Answer)
	// Sort and cap before converting, so that no more than MaxResults
	// files are read; LSP positions sort as editor positions do.
	raw := slices.Clone(ans.Locations)
	slices.SortStableFunc(raw, func(a, b results.Location) int {
		return cmp.Or(strings.Compare(cmp.Or(a.Path, a.URI), cmp.Or(b.Path, b.URI)),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	raw = capped(&out, raw)
	out.Locations = make([]agentlsp.EditorLocation, 0, len(raw))
	for _, l := range raw {
		out.Locations = append(out.Locations, v.loc(l.Path, l.URI, l.Range))
	}
	slices.SortStableFunc(out.Locations, compareLocations)
	return out, nil
}

func (v *view) hover(path string, ans *results.HoverAnswer, err error) (LSPOutput, error) {
	if err != nil {
		return LSPOutput{}, err
	}
	out := v.answer(OpHover, ans.Answer)
	if h := ans.Hover; h != nil {
		out.Hover = &Hover{Text: h.Text}
		if h.Range != nil {
			r := v.loc(path, "", *h.Range)
			out.Hover.Range = &r
		}
	}
	return out, nil
}

func (v *view) symbols(op Operation, ans *results.SymbolsAnswer, err error) (LSPOutput, error) {
	if err != nil {
		return LSPOutput{}, err
	}
	out := v.answer(op, ans.Answer)
	type nested struct {
		results.Symbol
		depth int
	}
	var flat []nested
	var walk func(ss []results.Symbol, depth int)
	walk = func(ss []results.Symbol, depth int) {
		for _, s := range ss {
			flat = append(flat, nested{s, depth})
			walk(s.Children, depth+1)
		}
	}
	walk(ans.Symbols, 0)
	flat = capped(&out, flat) // before converting: read at most MaxResults files
	out.Symbols = make([]Symbol, 0, len(flat))
	for _, s := range flat {
		out.Symbols = append(out.Symbols, Symbol{
			Name: s.Name, Kind: s.KindName, Detail: s.Detail, Container: s.ContainerName, Depth: s.depth,
			Location: v.loc(s.Path, s.URI, s.SelectionRange), Range: v.loc(s.Path, s.URI, s.Range),
		})
	}
	return out, nil
}

func (v *view) items(op Operation, ans *results.CallItemsAnswer, err error) (LSPOutput, error) {
	if err != nil {
		return LSPOutput{}, err
	}
	out := v.answer(op, ans.Answer)
	out.Items = make([]CallItem, 0, len(ans.Items))
	for _, it := range ans.Items {
		out.Items = append(out.Items, v.item(it))
	}
	return out, nil
}

func (v *view) item(it results.CallItem) CallItem {
	return CallItem{Name: it.Name, Kind: it.KindName, Detail: it.Detail,
		Location: v.loc(it.Path, it.URI, it.SelectionRange)}
}

// call converts an incoming call (c.Item calls asked) or an outgoing one
// (asked calls c.Item). The call sites are in the caller's file.
func (v *view) call(op Operation, asked results.CallItem, c results.Call) Call {
	from, to := c.Item, asked
	if op == OpOutgoingCalls {
		from, to = asked, c.Item
	}
	out := Call{From: v.item(from), To: v.item(to), Sites: make([]agentlsp.EditorLocation, 0, len(c.FromRanges))}
	for _, r := range c.FromRanges {
		out.Sites = append(out.Sites, v.loc(from.Path, from.URI, r))
	}
	slices.SortFunc(out.Sites, compareLocations)
	return out
}

// mergeCalls joins the calls between the same two items and drops repeated
// sites: pyright and typescript-language-server list some call sites twice
// (the same range in fromRanges, or the caller in two entries), which an
// agent would count as two calls.
func mergeCalls(calls []Call) []Call {
	type pair struct{ from, to CallItem }
	at := make(map[pair]int, len(calls))
	out := calls[:0]
	for _, c := range calls {
		k := pair{c.From, c.To}
		if i, ok := at[k]; ok {
			out[i].Sites = append(out[i].Sites, c.Sites...)
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	for i := range out {
		slices.SortFunc(out[i].Sites, compareLocations)
		out[i].Sites = slices.Compact(out[i].Sites)
	}
	return out
}

// compareLocations orders locations by path, then position: servers
// answer in an order that depends on what they analysed first.
func compareLocations(a, b agentlsp.EditorLocation) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// compareCalls orders calls by their first site.
func compareCalls(a, b Call) int {
	if len(a.Sites) == 0 || len(b.Sites) == 0 {
		return cmp.Compare(len(a.Sites), len(b.Sites))
	}
	return compareLocations(a.Sites[0], b.Sites[0])
}

// capped returns at most MaxResults of rs, counting the others in
// out.More.
func capped[T any](out *LSPOutput, rs []T) []T {
	if len(rs) <= MaxResults {
		return rs
	}
	out.More += len(rs) - MaxResults
	return rs[:MaxResults]
}

// preview returns line n (1-based) of a file in the editor view, trimmed
// and cut to maxPreview characters, or "" when it cannot be read (a file
// outside the workspace, for instance).
func (v *view) preview(path string, n int) string {
	lines, ok := v.lines[path]
	if !ok {
		if text, err := v.ed.Text(path); err == nil {
			lines = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
		}
		v.lines[path] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	line := strings.TrimSpace(lines[n-1])
	if utf8.RuneCountInString(line) > maxPreview {
		line = string([]rune(line)[:maxPreview]) + "..."
	}
	return line
}

// located renders a location with its source line.
func (v *view) located(l agentlsp.EditorLocation) string {
	if p := v.preview(l.Path, l.Line); p != "" {
		return l.String() + "  " + p
	}
	return l.String()
}

// plural renders a count and a noun.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
