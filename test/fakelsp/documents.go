package fakelsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// document is the fake's copy of an open text document.
type document struct {
	uri        string
	languageID string
	version    int
	text       string
}

// position is an LSP Position; character counts UTF-16 code units, or
// bytes once utf-8 was negotiated.
type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// lspRange is an LSP Range.
type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

// didOpen stores the document and publishes its diagnostics.
func (s *server) didOpen(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI        string `json:"uri"`
			LanguageID string `json:"languageId"`
			Version    int    `json:"version"`
			Text       string `json:"text"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.printf("fakelsp: error: bad didOpen params: %v", err)
		return
	}
	td := p.TextDocument
	d := &document{uri: td.URI, languageID: td.LanguageID, version: td.Version, text: td.Text}
	s.docs[d.uri] = d
	s.publish(d, true)
}

// textChange is one TextDocumentContentChangeEvent.
type textChange struct {
	Range *lspRange `json:"range"`
	Text  string    `json:"text"`
}

// didChange applies the changes in order and publishes diagnostics.
func (s *server) didChange(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
		ContentChanges []textChange `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.printf("fakelsp: error: bad didChange params: %v", err)
		return
	}
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		s.log.printf("fakelsp: error: didChange of %s, which is not open", p.TextDocument.URI)
		return
	}
	for i, c := range p.ContentChanges {
		text, err := applyChange(d.text, c, s.utf8)
		if err != nil {
			s.log.printf("fakelsp: error: didChange %s v%d change %d: %v (applied clamped)",
				d.uri, p.TextDocument.Version, i, err)
		}
		d.text = text
	}
	d.version = p.TextDocument.Version
	s.publish(d, false)
}

// didClose forgets the document.
func (s *server) didClose(params json.RawMessage) {
	uri, err := paramURI(params)
	if err != nil {
		s.log.printf("fakelsp: error: bad didClose params: %v", err)
		return
	}
	if _, ok := s.docs[uri]; !ok {
		s.log.printf("fakelsp: error: didClose of %s, which is not open", uri)
	}
	delete(s.docs, uri)
}

// didSave is recorded; with --check-on-save it begins a check, with
// --refresh-on-save it asks the client to pull diagnostics again
// (workspace/diagnostic/refresh).
func (s *server) didSave(json.RawMessage) {
	if s.cfg.checkOnSave > 0 {
		s.startCheck()
	}
	if s.cfg.refreshOnSave {
		s.call(s.internalID(), "workspace/diagnostic/refresh", nil, nil)
	}
}

// documentText answers fake/documentText with the fake's copy.
func (s *server) documentText(r *request) {
	uri, err := paramURI(r.params)
	if err != nil {
		s.reply(r, nil, &rpcError{Code: codeInvalidParams, Message: err.Error()})
		return
	}
	d, ok := s.docs[uri]
	if !ok {
		s.reply(r, nil, &rpcError{Code: codeInvalidParams, Message: "document not open: " + uri})
		return
	}
	s.reply(r, map[string]any{"text": d.text, "version": d.version, "languageId": d.languageID}, nil)
}

// paramURI reads {"uri"} or {"textDocument":{"uri"}}.
func paramURI(params json.RawMessage) (string, error) {
	var p struct {
		URI          string `json:"uri"`
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return "", err
	}
	if p.URI == "" {
		p.URI = p.TextDocument.URI
	}
	if p.URI == "" {
		return "", fmt.Errorf("no uri in %s", params)
	}
	return p.URI, nil
}

// applyChange applies one change to text. A range outside the text is
// clamped; the error says so.
func applyChange(text string, c textChange, utf8 bool) (string, error) {
	if c.Range == nil {
		return c.Text, nil
	}
	start, err1 := offsetOf(text, c.Range.Start, utf8)
	end, err2 := offsetOf(text, c.Range.End, utf8)
	err := err1
	if err == nil {
		err = err2
	}
	if end < start {
		end = start
		err = fmt.Errorf("range end %v before start %v", c.Range.End, c.Range.Start)
	}
	return text[:start] + c.Text + text[end:], err
}

// offsetOf converts p to a byte offset in text, clamping positions past the
// end of their line or of the text.
func offsetOf(text string, p position, utf8 bool) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("negative position %v", p)
	}
	start := 0
	for l := 0; l < p.Line; l++ {
		next, ok := nextLine(text, start)
		if !ok {
			return len(text), fmt.Errorf("line %d past the end (%d lines)", p.Line, l+1)
		}
		start = next
	}
	line := text[start:lineEnd(text, start)]
	n, err := unitsToBytes(line, p.Character, utf8)
	if err != nil {
		err = fmt.Errorf("line %d: %w", p.Line, err)
	}
	return start + n, err
}

// lineEnd is the offset of the terminator of the line starting at start.
func lineEnd(text string, start int) int {
	if i := strings.IndexAny(text[start:], "\r\n"); i >= 0 {
		return start + i
	}
	return len(text)
}

// nextLine is the start of the line after the one starting at start; LSP
// ends lines with \n, \r\n or \r.
func nextLine(text string, start int) (int, bool) {
	end := lineEnd(text, start)
	switch {
	case end == len(text):
		return 0, false
	case strings.HasPrefix(text[end:], "\r\n"):
		return end + 2, true
	default:
		return end + 1, true
	}
}

// unitsToBytes converts a column in line to a byte offset.
func unitsToBytes(line string, col int, utf8Units bool) (int, error) {
	if utf8Units {
		if col > len(line) {
			return len(line), fmt.Errorf("character %d past the end of the line (%d bytes)", col, len(line))
		}
		return col, nil
	}
	units := 0
	for i, r := range line {
		if units == col {
			return i, nil
		}
		units += utf16Len(r)
		if units > col {
			return i, fmt.Errorf("character %d splits a surrogate pair", col)
		}
	}
	if units == col {
		return len(line), nil
	}
	return len(line), fmt.Errorf("character %d past the end of the line (%d UTF-16 units)", col, units)
}

// columnOf is the column of byte offset i in line.
func columnOf(line string, i int, utf8Units bool) int {
	if utf8Units {
		return i
	}
	units := 0
	for _, r := range line[:i] {
		units += utf16Len(r)
	}
	return units
}

// utf16Len is the number of UTF-16 code units of r; an invalid byte counts
// as one.
func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
