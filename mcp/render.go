package mcp

import (
	"fmt"
	"strings"

	"github.com/agentlsp/agentlsp/safetext"
)

// render writes an lsp answer as compact text for the model: a header
// saying how much was found and which servers answered (and whether one
// was still indexing), then one line per result, then the errors of
// servers that failed while others answered.
func (v *view) render(out LSPOutput, in LSPInput) string {
	var b strings.Builder
	switch out.Operation {
	case OpDefinition, OpReferences, OpImplementation:
		v.renderLocations(&b, out)
	case OpHover:
		renderHover(&b, out)
	case OpDocumentSymbol, OpWorkspaceSymbol:
		v.renderSymbols(&b, out, in)
	case OpPrepareCalls:
		what := plural(len(out.Items), "call hierarchy item")
		if len(out.Items) == 0 {
			what = noItem
		}
		renderHeader(&b, out, what, len(out.Items))
		for _, it := range out.Items {
			fmt.Fprintf(&b, "%s %s  %s\n", it.Kind, it.Name, it.Location)
		}
	case OpIncomingCalls, OpOutgoingCalls:
		renderCalls(&b, out)
	}
	if out.More > 0 {
		fmt.Fprintf(&b, "... and %d more\n", out.More)
	}
	for _, e := range out.Errors {
		fmt.Fprintf(&b, "note: %s\n", indent(e))
	}
	if len(out.Unwatched) > 0 {
		fmt.Fprintf(&b, "note: not watched for changes: %s (a change made there since the language server read it is not seen)\n",
			safetext.EscapeLine(strings.Join(out.Unwatched, ", ")))
	}
	if len(out.Starting) > 0 {
		fmt.Fprintf(&b, "note: still starting, not in this answer: %s (ask again shortly)\n", strings.Join(out.Starting, ", "))
	}
	return b.String()
}

// noItem heads a call hierarchy answer with nothing to ask about.
const noItem = "no function or method at this position"

// nouns name one result of each operation that answers with locations.
var nouns = map[Operation]string{OpDefinition: "definition", OpReferences: "reference", OpImplementation: "implementation"}

// renderHeader writes "what (servers):", or "no ... (servers)" style
// headers when n is zero and what says so.
func renderHeader(b *strings.Builder, out LSPOutput, what string, n int) {
	fmt.Fprintf(b, "%s (%s", what, strings.Join(out.Servers, ", "))
	if out.Indexing {
		b.WriteString("; still indexing: results may be incomplete, ask again later")
	}
	b.WriteString(")")
	if n > 0 {
		b.WriteString(":")
	}
	b.WriteString("\n")
}

func (v *view) renderLocations(b *strings.Builder, out LSPOutput) {
	noun := nouns[out.Operation]
	what := plural(len(out.Locations), noun)
	if len(out.Locations) == 0 {
		what = "no " + noun + " found"
	}
	renderHeader(b, out, what, len(out.Locations))
	for _, l := range out.Locations {
		b.WriteString(v.located(l) + "\n")
	}
}

func renderHover(b *strings.Builder, out LSPOutput) {
	if out.Hover == nil {
		renderHeader(b, out, "no hover information", 0)
		return
	}
	what := "hover"
	if out.Hover.Range != nil {
		what += " at " + out.Hover.Range.String()
	}
	renderHeader(b, out, what, 1)
	b.WriteString(out.Hover.Text + "\n")
}

// renderSymbols writes an outline: "kind name  path:line:col", indented
// by depth; workspace symbols add their container.
func (v *view) renderSymbols(b *strings.Builder, out LSPOutput, in LSPInput) {
	what := plural(len(out.Symbols), "symbol")
	if out.Operation == OpWorkspaceSymbol {
		what += fmt.Sprintf(" matching %q", in.Query)
	} else {
		what += " in " + safetext.EscapeLine(v.ed.Rel(in.FilePath)) // a header is one line
	}
	renderHeader(b, out, what, len(out.Symbols))
	for _, s := range out.Symbols {
		fmt.Fprintf(b, "%s%s %s  %s", strings.Repeat("  ", s.Depth), s.Kind, s.Name, s.Location)
		if s.Container != "" {
			fmt.Fprintf(b, "  in %s", s.Container)
		}
		b.WriteString("\n")
	}
}

// renderCalls writes one line per call site: the caller and the site for
// incoming calls; the callee, the site and the callee's place for
// outgoing ones.
func renderCalls(b *strings.Builder, out LSPOutput) {
	n := 0
	for _, c := range out.Calls {
		n += len(c.Sites)
	}
	var names []string
	for _, it := range out.Items {
		names = append(names, it.Name)
	}
	what := plural(n, "call") + " to " + strings.Join(names, ", ")
	switch {
	case len(names) == 0:
		what = noItem
	case out.Operation == OpOutgoingCalls:
		what = plural(n, "call") + " from " + strings.Join(names, ", ")
	}
	renderHeader(b, out, what, n)
	for _, c := range out.Calls {
		for _, site := range c.Sites {
			if out.Operation == OpIncomingCalls {
				fmt.Fprintf(b, "%s %s  %s\n", c.From.Kind, c.From.Name, site)
			} else {
				fmt.Fprintf(b, "%s %s  %s -> %s\n", c.To.Kind, c.To.Name, site, c.To.Location)
			}
		}
	}
}

// indent indents the lines of s after the first.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
