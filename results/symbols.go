package results

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/agentlsp/agentlsp/paths"
)

// wireSymbol is a DocumentSymbol, a SymbolInformation or a
// WorkspaceSymbol.
type wireSymbol struct {
	Name           string        `json:"name"`
	Detail         string        `json:"detail"`
	Kind           int           `json:"kind"`
	ContainerName  string        `json:"containerName"`
	Location       *wireLocation `json:"location"`
	Range          *Range        `json:"range"`
	SelectionRange *Range        `json:"selectionRange"`
	Children       []wireSymbol  `json:"children"`
}

// ParseDocumentSymbols parses a documentSymbol result: null, a tree of
// DocumentSymbols (their URI is uri, the document asked about) or a flat
// list of SymbolInformation (their URI from their location). The result
// is never nil.
func ParseDocumentSymbols(raw json.RawMessage, uri string) ([]Symbol, error) {
	return parseSymbols(raw, uri, true)
}

// ParseWorkspaceSymbols parses a workspace/symbol result: null, or a list
// of SymbolInformation or WorkspaceSymbol, whose location may be a bare
// {uri} (Range zero). The result is never nil.
func ParseWorkspaceSymbols(raw json.RawMessage) ([]Symbol, error) {
	return parseSymbols(raw, "", false)
}

func parseSymbols(raw json.RawMessage, uri string, tree bool) ([]Symbol, error) {
	return parseEach(raw, "symbol", func(item json.RawMessage) (Symbol, error) {
		var w wireSymbol
		if err := json.Unmarshal(item, &w); err != nil {
			return Symbol{}, badResult("symbol", item, err)
		}
		s, ok := w.symbol(uri, tree)
		if !ok {
			return Symbol{}, badResult("symbol without location or range", item, nil)
		}
		return s, nil
	})
}

// symbol converts w, reporting false when it has neither a location nor
// (in a tree) a range.
func (w *wireSymbol) symbol(uri string, tree bool) (Symbol, bool) {
	s := Symbol{Name: w.Name, Detail: w.Detail, Kind: w.Kind,
		KindName: SymbolKindName(w.Kind), ContainerName: w.ContainerName}
	switch {
	case w.Location != nil:
		loc, ok := w.Location.location()
		if !ok {
			return Symbol{}, false
		}
		s.URI, s.Path, s.Range, s.SelectionRange = loc.URI, loc.Path, loc.Range, loc.Range
	case tree && w.Range != nil:
		s.URI, s.Path, s.Range = uri, paths.FromURI(uri), *w.Range
		s.SelectionRange = *cmp.Or(w.SelectionRange, w.Range)
	default:
		return Symbol{}, false
	}
	for i := range w.Children {
		c, ok := w.Children[i].symbol(uri, tree)
		if !ok {
			return Symbol{}, false
		}
		s.Children = append(s.Children, c)
	}
	return s, true
}

// wireCallItem is a CallHierarchyItem.
type wireCallItem struct {
	Name           string          `json:"name"`
	Detail         string          `json:"detail"`
	Kind           int             `json:"kind"`
	URI            string          `json:"uri"`
	Range          *Range          `json:"range"`
	SelectionRange *Range          `json:"selectionRange"`
	Data           json.RawMessage `json:"data"`
}

// ParseCallItems parses a prepareCallHierarchy result: null or a list of
// CallHierarchyItems. The result is never nil.
func ParseCallItems(raw json.RawMessage) ([]CallItem, error) {
	return parseEach(raw, "call hierarchy item", parseCallItem)
}

func parseCallItem(raw json.RawMessage) (CallItem, error) {
	var w wireCallItem
	if err := json.Unmarshal(raw, &w); err != nil {
		return CallItem{}, badResult("call hierarchy item", raw, err)
	}
	if w.URI == "" || w.Range == nil {
		return CallItem{}, badResult("call hierarchy item without uri or range", raw, nil)
	}
	c := CallItem{Name: w.Name, Detail: w.Detail, Kind: w.Kind, KindName: SymbolKindName(w.Kind),
		URI: w.URI, Path: paths.FromURI(w.URI), Range: *w.Range, SelectionRange: *cmp.Or(w.SelectionRange, w.Range),
		Raw: bytes.Clone(bytes.TrimSpace(raw))}
	if !isNull(w.Data) {
		c.Data = bytes.Clone(w.Data)
	}
	return c, nil
}

// wireCall is a CallHierarchyIncomingCall or CallHierarchyOutgoingCall.
type wireCall struct {
	From       json.RawMessage `json:"from"`
	To         json.RawMessage `json:"to"`
	FromRanges []Range         `json:"fromRanges"`
}

// ParseIncomingCalls parses a callHierarchy/incomingCalls result: null or
// a list of {from, fromRanges}. The result is never nil.
func ParseIncomingCalls(raw json.RawMessage) ([]Call, error) {
	return parseCalls(raw, "from")
}

// ParseOutgoingCalls parses a callHierarchy/outgoingCalls result: null or
// a list of {to, fromRanges}. The result is never nil.
func ParseOutgoingCalls(raw json.RawMessage) ([]Call, error) {
	return parseCalls(raw, "to")
}

func parseCalls(raw json.RawMessage, field string) ([]Call, error) {
	return parseEach(raw, "call", func(item json.RawMessage) (Call, error) {
		var w wireCall
		if err := json.Unmarshal(item, &w); err != nil {
			return Call{}, badResult("call", item, err)
		}
		target := w.From
		if field == "to" {
			target = w.To
		}
		if isNull(target) {
			return Call{}, badResult(fmt.Sprintf("call without %q", field), item, nil)
		}
		c, err := parseCallItem(target)
		return Call{Item: c, FromRanges: append([]Range{}, w.FromRanges...)}, err
	})
}
