package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/agentlsp/agentlsp/messages"
)

// Documents of a direct connection: versions, incremental changes, pushed
// diagnostics and pulls.

// send opens the document with text, or changes it to text with the next
// version (one incremental change when the server asked for them). The
// lock keeps versions and queued notifications in the same order.
func (dc *directConn) send(uri, languageID, text string) (int, error) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	d := dc.docs[uri]
	if d == nil {
		return 1, dc.open(uri, languageID, text)
	}
	if d.text == text {
		return d.version, nil
	}
	d.version++
	change := map[string]any{"text": text}
	if dc.incremental {
		change = incrementalChange(d.text, text)
	}
	d.text = text
	return d.version, dc.conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": d.version},
		"contentChanges": []any{change},
	})
}

// open sends didOpen with version 1; dc.mu is held.
func (dc *directConn) open(uri, languageID, text string) error {
	dc.docs[uri] = &docState{version: 1, text: text, changed: make(chan struct{})}
	return dc.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": languageID, "version": 1, "text": text,
	}})
}

// ensureOpen opens the document with its text on disk unless it is open.
func (dc *directConn) ensureOpen(uri, languageID, path string) error {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.docs[uri] != nil {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return dc.open(uri, languageID, string(b))
}

// onEvent records pushed diagnostics; it runs on the read loop.
func (dc *directConn) onEvent(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p struct {
		URI         string            `json:"uri"`
		Version     *int              `json:"version"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil || p.Version == nil {
		return
	}
	n := countErrors(p.Diagnostics)
	dc.mu.Lock()
	defer dc.mu.Unlock()
	d := dc.docs[p.URI]
	if d == nil || *p.Version < d.published {
		return
	}
	d.published, d.errors = *p.Version, n
	close(d.changed)
	d.changed = make(chan struct{})
}

// wait blocks until diagnostics for version (or later) were pushed, or
// ctx ends; it returns their error count.
func (dc *directConn) wait(ctx context.Context, uri string, version int) (errors int, ok bool) {
	for {
		dc.mu.Lock()
		d := dc.docs[uri]
		published, n, changed := d.published, d.errors, d.changed
		dc.mu.Unlock()
		if published >= version {
			return n, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, false
		}
	}
}

// latest is what was pushed last, fresh if it describes version or later.
func (dc *directConn) latest(uri string, version int) outcome {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	d := dc.docs[uri]
	if d.published >= version {
		return outcome{status: messages.StatusFresh, errors: d.errors}
	}
	return outcome{status: messages.StatusStale, errors: d.errors}
}

// pullErrors pulls the document's diagnostics and counts the errors.
func (dc *directConn) pullErrors(ctx context.Context, uri string) (int, error) {
	raw, err := dc.conn.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": uri}})
	if err != nil {
		return 0, err
	}
	var rep struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return 0, err
	}
	return countErrors(rep.Items), nil
}

// countErrors counts the diagnostics of severity error (or none given).
func countErrors(ds []json.RawMessage) int {
	n := 0
	for _, raw := range ds {
		var d struct {
			Severity int `json:"severity"`
		}
		if json.Unmarshal(raw, &d) == nil && d.Severity <= 1 {
			n++
		}
	}
	return n
}

// incrementalChange is the change from old to new as one range: common
// prefix and suffix, positions in UTF-16 units. Non-ASCII text falls back
// to the full text, which is always correct.
func incrementalChange(old, new string) map[string]any {
	if !isASCII(old) || !isASCII(new) {
		return map[string]any{"text": new}
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	return map[string]any{
		"range": map[string]any{"start": position(old, p), "end": position(old, len(old)-s)},
		"text":  new[p : len(new)-s],
	}
}

// position is the LSP position of byte offset off in ASCII text.
func position(text string, off int) map[string]int {
	line := strings.Count(text[:off], "\n")
	col := off - (strings.LastIndexByte(text[:off], '\n') + 1)
	return map[string]int{"line": line, "character": col}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
