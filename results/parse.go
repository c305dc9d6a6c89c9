// Package results turns what language servers answer to navigation
// requests, whatever shape each server picks, into plain types: Location,
// Hover, Symbol, CallItem, Call, and the answers the API returns with the
// servers that gave them (LocationsAnswer, ...). The parsers are pure
// functions, safe for concurrent use; what they return owns its memory
// (nothing aliases the input). No goroutines, no I/O.
package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// maxQuoted bounds, in bytes, how much of a bad result an error quotes.
const maxQuoted = 100

// Position and Range are the one position and range type of agentlsp
// (zero-based, UTF-16 code units).
type (
	Position = messages.Position
	Range    = messages.Range
)

// ErrBadResult: a server's result has a shape agentlsp does not know.
var ErrBadResult = errors.New("agentlsp: unexpected result from the language server")

// Location is a range in a document. Path is the file path of a file://
// URI, "" for other schemes. Location is comparable, so it can key a map.
type Location struct {
	URI   string `json:"uri"`
	Path  string `json:"path,omitempty"`
	Range Range  `json:"range"`
}

// Hover is hover information rendered as Markdown text, with the range it
// applies to when the server gave one.
type Hover struct {
	Text  string `json:"text"`
	Range *Range `json:"range,omitempty"`
}

// Symbol is a document or workspace symbol. Kind is the LSP SymbolKind and
// KindName its lower-case name (see SymbolKindName). Range covers the
// whole declaration and SelectionRange its name; a flat SymbolInformation
// has one range, used for both. Children are the nested symbols of a
// DocumentSymbol tree.
type Symbol struct {
	Name           string   `json:"name"`
	Detail         string   `json:"detail,omitempty"`
	Kind           int      `json:"kind"`
	KindName       string   `json:"kindName"`
	ContainerName  string   `json:"containerName,omitempty"`
	URI            string   `json:"uri"`
	Path           string   `json:"path,omitempty"`
	Range          Range    `json:"range"`
	SelectionRange Range    `json:"selectionRange"`
	Children       []Symbol `json:"children,omitempty"`
}

// CallItem is an LSP CallHierarchyItem. Data is the server's opaque data
// member, nil when absent or null; Raw is the item exactly as the server
// sent it, to send back when asking for its incoming or outgoing calls.
type CallItem struct {
	Name           string          `json:"name"`
	Detail         string          `json:"detail,omitempty"`
	Kind           int             `json:"kind"`
	KindName       string          `json:"kindName"`
	URI            string          `json:"uri"`
	Path           string          `json:"path,omitempty"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
	Raw            json.RawMessage `json:"raw,omitempty"`
}

// Call is one incoming or outgoing call: Item is the caller (incoming) or
// the callee (outgoing), FromRanges where the calls appear (in the
// caller's file for incoming calls, in the asked item's file for outgoing
// ones). FromRanges is never nil.
type Call struct {
	Item       CallItem `json:"item"`
	FromRanges []Range  `json:"fromRanges"`
}

// symbolKinds are the names of the LSP SymbolKinds, indexed by kind.
var symbolKinds = [...]string{
	"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable",
	"constant", "string", "number", "boolean", "array", "object", "key",
	"null", "enum member", "struct", "event", "operator", "type parameter",
}

// SymbolKindName returns the lower-case name of an LSP SymbolKind (1
// "file" ... 12 "function" ... 23 "struct" ... 26 "type parameter"), or
// "" for a kind outside the table.
func SymbolKindName(kind int) string {
	if kind < 0 || kind >= len(symbolKinds) {
		return ""
	}
	return symbolKinds[kind]
}

// wireLocation is a Location or a LocationLink as servers send them.
type wireLocation struct {
	URI                  *string `json:"uri"`
	Range                *Range  `json:"range"`
	TargetURI            *string `json:"targetUri"`
	TargetRange          *Range  `json:"targetRange"`
	TargetSelectionRange *Range  `json:"targetSelectionRange"`
}

// ParseLocations parses the result of definition, declaration,
// typeDefinition, implementation or references: null, a Location, an
// array of Locations, of LocationLinks (their targetUri and
// targetSelectionRange, else targetRange), or of both. The result is never
// nil.
func ParseLocations(raw json.RawMessage) ([]Location, error) {
	return parseEach(raw, "location", func(item json.RawMessage) (Location, error) {
		var w wireLocation
		if err := json.Unmarshal(item, &w); err != nil {
			return Location{}, badResult("location", item, err)
		}
		loc, ok := w.location()
		if !ok {
			return Location{}, badResult("location without uri or targetUri", item, nil)
		}
		return loc, nil
	})
}

// location converts w, reporting false when it has no URI. A missing range
// is the zero Range.
func (w *wireLocation) location() (Location, bool) {
	switch {
	case w.TargetURI != nil && *w.TargetURI != "":
		return newLocation(*w.TargetURI, cmp.Or(w.TargetSelectionRange, w.TargetRange)), true
	case w.URI != nil && *w.URI != "":
		return newLocation(*w.URI, w.Range), true
	}
	return Location{}, false
}

func newLocation(uri string, r *Range) Location {
	loc := Location{URI: uri, Path: paths.FromURI(uri)}
	if r != nil {
		loc.Range = *r
	}
	return loc
}

// wireHover is an LSP Hover.
type wireHover struct {
	Contents json.RawMessage `json:"contents"`
	Range    *Range          `json:"range"`
}

// ParseHover parses a hover result. Contents may be a string, a
// MarkedString {language, value} (rendered as a fenced code block in that
// language), an array of those, or MarkupContent {kind, value}; parts are
// joined by a blank line. A null result, or contents with no text, is nil.
func ParseHover(raw json.RawMessage) (*Hover, error) {
	if isNull(raw) {
		return nil, nil
	}
	var w wireHover
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, badResult("hover", raw, err)
	}
	if w.Contents == nil {
		return nil, badResult("hover without contents", raw, nil)
	}
	text, err := hoverText(w.Contents)
	if err != nil || text == "" {
		return nil, err
	}
	return &Hover{Text: text, Range: w.Range}, nil
}

// hoverText renders hover contents.
func hoverText(contents json.RawMessage) (string, error) {
	contents = bytes.TrimSpace(contents)
	if isNull(contents) || contents[0] != '[' {
		return markedString(contents)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(contents, &parts); err != nil {
		return "", badResult("hover contents", contents, err)
	}
	var texts []string
	for _, p := range parts {
		s, err := markedString(p)
		if err != nil {
			return "", err
		}
		if s != "" {
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n\n"), nil
}

// wireMarked is a MarkedString object or MarkupContent.
type wireMarked struct {
	Language *string `json:"language"`
	Value    *string `json:"value"`
}

// markedString renders one string, MarkedString or MarkupContent, trimmed
// of surrounding blank lines.
func markedString(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '"' { // a string, else an object
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badResult("hover contents", raw, err)
		}
		return trimBlank(s), nil
	}
	var w wireMarked
	if err := json.Unmarshal(raw, &w); err != nil || w.Value == nil {
		return "", badResult("hover contents", raw, err)
	}
	value := trimBlank(*w.Value)
	if w.Language == nil || value == "" {
		return value, nil
	}
	fence := "```"
	for strings.Contains(value, fence) {
		fence += "`"
	}
	return fence + *w.Language + "\n" + value + "\n" + fence, nil
}

// trimBlank removes leading blank lines and trailing white space, keeping
// the indentation of the first line.
func trimBlank(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	lead := s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))]
	if i := strings.LastIndexAny(lead, "\r\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// parseEach parses each element of a result (see elements) with parse,
// into a slice that is never nil; the first error wins.
func parseEach[T any](raw json.RawMessage, what string, parse func(json.RawMessage) (T, error)) ([]T, error) {
	items, err := elements(raw, what)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for _, item := range items {
		v, err := parse(item)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// elements splits a result into its elements: none for null, the elements
// of an array, or a lone object as a list of one. Each element is a copy.
func elements(raw json.RawMessage, what string) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return nil, nil
	case raw[0] == '{':
		return []json.RawMessage{bytes.Clone(raw)}, nil
	case raw[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, badResult(what+" list", raw, err)
		}
		return items, nil
	}
	return nil, badResult("not a "+what+" or a list of them", raw, nil)
}

// isNull reports whether raw is empty or JSON null.
func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// badResult is an error wrapping ErrBadResult that says what was expected,
// why decoding failed (err, may be nil) and quotes the start of raw.
func badResult(what string, raw []byte, err error) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		what += fmt.Sprintf(" (%s: got JSON %s)", te.Field, te.Value)
	case errors.As(err, &te):
		what += fmt.Sprintf(" (got JSON %s)", te.Value)
	case err != nil:
		what += fmt.Sprintf(" (%v)", err)
	}
	return fmt.Errorf("%w: %s: %s", ErrBadResult, what, quote(raw))
}

// quote returns at most maxQuoted bytes of raw with the white space
// outside JSON strings removed, cut on a character boundary and marked
// with "..." when cut. raw need not be valid JSON.
func quote(raw []byte) string {
	out := make([]byte, 0, maxQuoted+1)
	inString, escaped := false, false
	for _, c := range raw {
		if len(out) > maxQuoted {
			break
		}
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		out = append(out, c)
	}
	if len(out) <= maxQuoted {
		return string(out)
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(out[n]) {
		n--
	}
	return string(out[:n]) + "..."
}
