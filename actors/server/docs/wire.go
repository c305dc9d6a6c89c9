package docs

import "github.com/agentlsp/agentlsp/textpos"

// The LSP notifications that carry document state, as JSON-ready values.
// protocol's TextDocumentContentChangeEvent cannot leave the range out, so
// these are written as maps and small structs of our own.

type (
	textDocumentID struct {
		URI string `json:"uri"`
	}
	versionedID struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	}
	textDocumentItem struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int32  `json:"version"`
		Text       string `json:"text"`
	}
	position struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	lspRange struct {
		Start position `json:"start"`
		End   position `json:"end"`
	}
	rangeChange struct {
		Range lspRange `json:"range"`
		Text  string   `json:"text"`
	}
	fullChange struct {
		Text string `json:"text"`
	}
)

// DidOpen is the didOpen params of d.
func DidOpen(d *Document) any {
	return map[string]any{"textDocument": textDocumentItem{
		URI: d.URI, LanguageID: d.LanguageID, Version: d.Version, Text: d.Text}}
}

// DidChange is the didChange params that take the server from old to d's
// text: one incremental edit when the server asked for incremental sync,
// the full text otherwise.
func DidChange(d *Document, old string, sync Sync) map[string]any {
	var change any = fullChange{Text: d.Text}
	if sync.Kind == 2 {
		e := textpos.Change(old, d.Text, sync.Encoding)
		change = rangeChange{
			Range: lspRange{Start: position{e.StartLine, e.StartChar}, End: position{e.EndLine, e.EndChar}},
			Text:  e.Text,
		}
	}
	return map[string]any{
		"textDocument":   versionedID{URI: d.URI, Version: d.Version},
		"contentChanges": []any{change},
	}
}

// DidSave is the didSave params of uri.
func DidSave(uri string) any { return map[string]any{"textDocument": textDocumentID{URI: uri}} }

// DidClose is the didClose params of uri.
func DidClose(uri string) any { return map[string]any{"textDocument": textDocumentID{URI: uri}} }
