package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/results"
)

// result is a query's answer, ready to print as text or as JSON.
type result struct {
	answer results.Answer
	doc    any      // the --json document
	lines  []string // the text output, one entry a line
	block  bool     // lines is one text block whose newlines are its own (hover)
	none   string   // what to say on stderr when lines is empty
}

// writeJSON writes the JSON document.
func (r *result) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r.doc)
}

// writeText writes the lines on out, and on errOut what there is to know
// about the answer: nothing found, a server still indexing, servers that
// failed or were still starting while others answered, files in
// directories the watcher does not look into (a daemon's: --shared). When no server
// answered, it says nothing of what was found: status's error says why.
// Servers' text is escaped (safeText).
func (r *result) writeText(out, errOut io.Writer) error {
	for _, l := range r.lines {
		if r.block {
			l = safeText(l) // hover: its newlines are the text's own
		} else {
			l = safeLine(l) // a record: a newline in a file name stays in it
		}
		if _, err := fmt.Fprintln(out, l); err != nil {
			return err
		}
	}
	if len(r.lines) == 0 && r.status() == nil {
		fmt.Fprintf(errOut, "agentlsp: %s\n", r.none)
	}
	if r.answer.Indexing {
		fmt.Fprintln(errOut, "agentlsp: note: a server was still starting or indexing; the answer may be incomplete")
	}
	for _, e := range r.answer.Errors {
		fmt.Fprintf(errOut, "agentlsp: note: %s\n", safeText(trimPrefix(e)))
	}
	if len(r.answer.Unwatched) > 0 {
		fmt.Fprintf(errOut, "agentlsp: note: not watched for changes: %s (a change made there since the language server read it is not seen)\n",
			safeLine(strings.Join(r.answer.Unwatched, ", ")))
	}
	if len(r.answer.Starting) > 0 && r.status() == nil {
		fmt.Fprintf(errOut, "agentlsp: note: still starting, not in this answer: %s (ask again shortly)\n",
			strings.Join(r.answer.Starting, ", "))
	}
	return nil
}

// status is the failure (exit 3) of an answer no server gave because
// every server asked was still starting when it was due: "nothing found"
// would be a guess. Nil when a server answered.
func (r *result) status() error {
	if len(r.answer.Servers) > 0 || len(r.answer.Starting) == 0 {
		return nil
	}
	return failure(fmt.Errorf("%w: still starting: %s (ask again shortly)",
		results.ErrNoResult, strings.Join(r.answer.Starting, ", ")))
}

func opDefinition(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.Definition(ctx, q.args.path, q.pos)
	return locationsResult(q.ed, ans, "no definition found", err)
}

func opReferences(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.References(ctx, q.args.path, q.pos)
	return locationsResult(q.ed, ans, "no references found", err)
}

func opImplementation(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.Implementation(ctx, q.args.path, q.pos)
	return locationsResult(q.ed, ans, "no implementation found", err)
}

// locationsJSON is the --json document of definition, references and
// implementation.
type locationsJSON struct {
	results.Answer
	Locations []agentlsp.EditorLocation `json:"locations"`
}

func locationsResult(ed *agentlsp.Editor, ans *results.LocationsAnswer, none string, err error) (*result, error) {
	if err != nil {
		return nil, err
	}
	doc := locationsJSON{Answer: ans.Answer, Locations: []agentlsp.EditorLocation{}}
	res := &result{answer: ans.Answer, doc: &doc, none: none}
	for _, l := range ans.Locations {
		loc := ed.LocationOf(l.URI, l.Path, l.Range)
		doc.Locations = append(doc.Locations, loc)
		res.lines = append(res.lines, loc.String())
	}
	return res, nil
}

// hoverJSON is hover's --json document; Hover is null when there is none.
type hoverJSON struct {
	results.Answer
	Hover *string                  `json:"hover"`
	Range *agentlsp.EditorLocation `json:"range,omitempty"`
}

func opHover(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.Hover(ctx, q.args.path, q.pos)
	if err != nil {
		return nil, err
	}
	doc := hoverJSON{Answer: ans.Answer}
	res := &result{answer: ans.Answer, doc: &doc, none: "no hover information"}
	if h := ans.Hover; h != nil {
		doc.Hover = &h.Text
		res.lines, res.block = []string{h.Text}, true
		if h.Range != nil {
			loc := q.ed.Location(q.abs, *h.Range)
			doc.Range = &loc
		}
	}
	return res, nil
}

// symbolJSON is a symbol in --json output: Location is its name,
// Range the whole declaration.
type symbolJSON struct {
	Name      string                  `json:"name"`
	Kind      string                  `json:"kind"`
	Detail    string                  `json:"detail,omitempty"`
	Container string                  `json:"container,omitempty"`
	Location  agentlsp.EditorLocation `json:"location"`
	Range     agentlsp.EditorLocation `json:"range"`
	Children  []symbolJSON            `json:"children,omitempty"`
}

// symbolsJSON is the --json document of documentSymbol and
// workspaceSymbol.
type symbolsJSON struct {
	results.Answer
	Symbols []symbolJSON `json:"symbols"`
}

func opDocumentSymbol(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.DocumentSymbols(ctx, q.args.path)
	return symbolsResult(q.ed, ans, "no symbols found", err)
}

func opWorkspaceSymbol(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.WorkspaceSymbols(ctx, q.args.query)
	return symbolsResult(q.ed, ans, "no symbols found", err)
}

func symbolsResult(ed *agentlsp.Editor, ans *results.SymbolsAnswer, none string, err error) (*result, error) {
	if err != nil {
		return nil, err
	}
	doc := symbolsJSON{Answer: ans.Answer, Symbols: []symbolJSON{}}
	res := &result{answer: ans.Answer, doc: &doc, none: none}
	for _, s := range ans.Symbols {
		js := symbolTree(ed, s)
		doc.Symbols = append(doc.Symbols, js)
		res.lines = appendOutline(res.lines, js, 0)
	}
	return res, nil
}

// symbolTree converts a symbol and its children.
func symbolTree(ed *agentlsp.Editor, s results.Symbol) symbolJSON {
	js := symbolJSON{Name: s.Name, Kind: s.KindName, Detail: s.Detail, Container: s.ContainerName,
		Location: ed.LocationOf(s.URI, s.Path, s.SelectionRange),
		Range:    ed.LocationOf(s.URI, s.Path, s.Range)}
	if js.Kind == "" {
		js.Kind = fmt.Sprintf("kind %d", s.Kind)
	}
	for _, c := range s.Children {
		js.Children = append(js.Children, symbolTree(ed, c))
	}
	return js
}

// appendOutline appends "kind name path:line:col" for s and its children,
// indented two spaces a level.
func appendOutline(lines []string, s symbolJSON, depth int) []string {
	lines = append(lines, fmt.Sprintf("%s%s %s %s", strings.Repeat("  ", depth), s.Kind, s.Name, s.Location))
	for _, c := range s.Children {
		lines = appendOutline(lines, c, depth+1)
	}
	return lines
}
