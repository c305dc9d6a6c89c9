package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// The raw side's operations: the LSP requests behind each lsp tool
// operation. incomingCalls and outgoingCalls are two round trips
// (prepareCallHierarchy, then the calls of its item), as through MCP. The
// timed part ends when the result is decoded (into generic values, as the
// MCP client's SDK decodes its answer); checking it is not timed.

// do runs one operation and returns its round-trip time; the error is a
// failed call or, wrapping ErrWrong, an answer the check refused.
func (s *rawSide) do(ctx context.Context, op string, t target) (time.Duration, error) {
	start := time.Now()
	res, err := s.request(ctx, op, t)
	d := time.Since(start)
	if err != nil {
		return d, err
	}
	return d, s.check(op, res, t)
}

// request sends op's requests and decodes the last answer.
func (s *rawSide) request(ctx context.Context, op string, t target) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var raw json.RawMessage
	var err error
	switch op {
	case "goToDefinition":
		raw, err = s.conn.Call(ctx, "textDocument/definition", s.position(t.Call))
	case "findReferences":
		p := s.position(t.Call)
		p["context"] = map[string]any{"includeDeclaration": true}
		raw, err = s.conn.Call(ctx, "textDocument/references", p)
	case "hover":
		raw, err = s.conn.Call(ctx, "textDocument/hover", s.position(t.Call))
	case "documentSymbol":
		s.ensureOpen(t.Call.Path)
		raw, err = s.conn.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": s.uri(t.Call.Path)}})
	case "workspaceSymbol":
		raw, err = s.conn.Call(ctx, "workspace/symbol", map[string]any{"query": t.Query})
	case "goToImplementation":
		raw, err = s.conn.Call(ctx, "textDocument/implementation", s.position(t.Impl))
	case "prepareCallHierarchy", "incomingCalls", "outgoingCalls":
		raw, err = s.calls(ctx, op, t)
	default:
		return nil, fmt.Errorf("mcpbench: unknown operation %q", op)
	}
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(raw, &v)
	return v, err
}

// calls prepares the call hierarchy and, for incomingCalls and
// outgoingCalls, asks for the calls of its first item.
func (s *rawSide) calls(ctx context.Context, op string, t target) (json.RawMessage, error) {
	raw, err := s.conn.Call(ctx, "textDocument/prepareCallHierarchy", s.position(t.Call))
	if err != nil || op == "prepareCallHierarchy" {
		return raw, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, fmt.Errorf("%w: no call hierarchy item", ErrWrong)
	}
	method := "callHierarchy/incomingCalls"
	if op == "outgoingCalls" {
		method = "callHierarchy/outgoingCalls"
	}
	return s.conn.Call(ctx, method, map[string]any{"item": items[0]})
}

// position is the TextDocumentPositionParams of l, whose file it opens
// first if needed, as agentlsp opens every file it is asked about.
func (s *rawSide) position(l loc) map[string]any {
	s.ensureOpen(l.Path)
	return map[string]any{
		"textDocument": map[string]any{"uri": s.uri(l.Path)},
		"position":     map[string]any{"line": l.Line - 1, "character": utf16Col(s.line(l.Path, l.Line), l.Column)},
	}
}

// check accepts a non-empty answer; for goToDefinition, one naming t.Def
// (any location when t.Def is unknown).
func (s *rawSide) check(op string, v any, t target) error {
	switch x := v.(type) {
	case nil:
		return fmt.Errorf("%w: %s: null", ErrWrong, op)
	case []any:
		if len(x) == 0 {
			return fmt.Errorf("%w: %s: empty", ErrWrong, op)
		}
	case map[string]any:
		if op == "hover" && x["contents"] == nil {
			return fmt.Errorf("%w: hover: no contents", ErrWrong)
		}
	}
	if op != "goToDefinition" {
		return nil
	}
	locs := s.locations(v)
	// agentlsp keeps a definition's files open on gopls (its openTargets),
	// and gopls answers about a declaration faster when its file is open:
	// the raw client does what agentlsp does to its gopls.
	for _, l := range locs {
		if filepath.IsLocal(l.Path) {
			s.ensureOpen(l.Path)
		}
	}
	for _, l := range locs {
		if t.Def == (loc{}) || l == t.Def {
			return nil
		}
	}
	return fmt.Errorf("%w: goToDefinition: %v, want %s", ErrWrong, locs, t.Def)
}

// locations reads a Location, []Location or []LocationLink answer as
// editor positions.
func (s *rawSide) locations(v any) []loc {
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case map[string]any:
		list = []any{x}
	}
	var out []loc
	for _, e := range list {
		m, _ := e.(map[string]any)
		uri, _ := m["uri"].(string)
		rng, _ := m["range"].(map[string]any)
		if u, ok := m["targetUri"].(string); ok {
			uri = u
			rng, _ = m["targetSelectionRange"].(map[string]any)
		}
		start, _ := rng["start"].(map[string]any)
		line, _ := start["line"].(float64)
		char, _ := start["character"].(float64)
		rel := s.rel(uri)
		out = append(out, loc{Path: rel, Line: int(line) + 1, Column: charCol(s.line(rel, int(line)+1), int(char))})
	}
	return out
}

// firstDefinition returns the first location of a definition answer, for
// a workspace whose right answer is not given.
func (s *rawSide) firstDefinition(ctx context.Context, t target) (loc, error) {
	v, err := s.request(ctx, "goToDefinition", t)
	if err != nil {
		return loc{}, err
	}
	if locs := s.locations(v); len(locs) > 0 {
		return locs[0], nil
	}
	return loc{}, fmt.Errorf("%w: goToDefinition at %s: no location", ErrWrong, t.Call)
}

// edit writes text to path on disk, sends it to gopls, and waits for a
// publication of the caller that shows an error on the call's line (want)
// or none there (!want), then for the end of gopls's diagnosis of the
// change (every finding published). It returns the time from the write to
// that publication and to that end, and ErrWrong when either did not come
// within timeout (done is then 0).
func (s *rawSide) edit(ctx context.Context, path, text string, t target, want, onDisk bool, timeout time.Duration) (shown, done time.Duration, err error) {
	s.mu.Lock()
	after := s.seq
	s.mu.Unlock()
	start := time.Now()
	if err := writeFile(s.abs(path), text); err != nil {
		return 0, 0, err
	}
	if err := s.tell(path, text, onDisk); err != nil {
		return 0, 0, err
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	uri := s.uri(t.Call.Path)
	for {
		s.mu.Lock()
		if shown == 0 && s.showsSince(uri, after, t.Call.Line-1, want) {
			shown = time.Since(start)
		}
		ended, ok := s.diagnosedSince(start)
		changed := s.changed
		s.mu.Unlock()
		if shown > 0 && ok {
			return shown, max(ended.Sub(start), shown), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			if shown > 0 {
				return shown, 0, fmt.Errorf("%w: gopls did not end a diagnosis of the change within %v", ErrWrong, timeout)
			}
			return time.Since(start), 0, fmt.Errorf("%w: no publication of %s with want-error=%v on line %d within %v",
				ErrWrong, t.Call.Path, want, t.Call.Line, timeout)
		case <-ctx.Done():
			return time.Since(start), 0, ctx.Err()
		}
	}
}

// tell sends gopls a file's new text (didOpen or didChange), or, onDisk,
// only that it changed on disk (didChangeWatchedFiles), as an editor does
// for a file it does not have open; a file it has open (a definition's,
// kept open as agentlsp keeps it) gets its new text, as agentlsp re-syncs
// its open documents from the disk.
func (s *rawSide) tell(path, text string, onDisk bool) error {
	if !onDisk || s.isOpen(path) {
		return s.change(path, text)
	}
	return s.conn.Notify("workspace/didChangeWatchedFiles", map[string]any{
		"changes": []map[string]any{{"uri": s.uri(path), "type": 2}}})
}

// showsSince reports whether a publication of uri numbered above after
// has (want) or lacks (!want) an error on line (0-based). Called with mu.
func (s *rawSide) showsSince(uri string, after int64, line int, want bool) bool {
	for _, p := range s.pubs[uri] {
		if p.seq <= after {
			continue
		}
		has := false
		for _, d := range p.diags {
			has = has || d.Severity == 1 && d.Range.Start.Line == line
		}
		if has == want {
			return true
		}
	}
	return false
}

func (s *rawSide) abs(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }
