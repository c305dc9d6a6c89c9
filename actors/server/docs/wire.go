package docs

import "github.com/agentlsp/agentlsp/textpos"

// The LSP notifications that carry document state, as JSON-ready values.
// protocol's TextDocumentContentChangeEvent cannot leave the range out, so
// these are written as small structs of our own (a struct encodes without
// the sorting and reflection a map's encoding costs).

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
	return openParams{TextDocument: textDocumentItem{URI: d.URI, LanguageID: d.LanguageID, Version: d.Version, Text: d.Text}}
}

// ChangeParams are didChange's params. ForceRebuild is clangd's extension
// (a touch: diagnose the same text again).
type ChangeParams struct {
	TextDocument   versionedID `json:"textDocument"`
	ContentChanges []any       `json:"contentChanges"`
	ForceRebuild   bool        `json:"forceRebuild,omitempty"`
}

// openParams are didOpen's params.
type openParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

// DidChange is the didChange params that take the server from old to d's
// text: one incremental edit when the server asked for incremental sync,
// the full text otherwise.
func DidChange(d *Document, old string, sync Sync) *ChangeParams {
	var change any = fullChange{Text: d.Text}
	if sync.Kind == 2 {
		e := textpos.Change(old, d.Text, sync.Encoding)
		change = rangeChange{
			Range: lspRange{Start: position{e.StartLine, e.StartChar}, End: position{e.EndLine, e.EndChar}},
			Text:  e.Text,
		}
	}
	return &ChangeParams{TextDocument: versionedID{URI: d.URI, Version: d.Version}, ContentChanges: []any{change}}
}

// DidSave is the didSave params of uri.
func DidSave(uri string) any { return map[string]any{"textDocument": textDocumentID{URI: uri}} }

// DidClose is the didClose params of uri.
func DidClose(uri string) any { return map[string]any{"textDocument": textDocumentID{URI: uri}} }
