package agentlsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/textpos"
)

// Answer says who answered a navigation request and how much to trust it.
type Answer struct {
	// Servers that answered.
	Servers []string `json:"servers"`
	// Indexing: a server was still starting or indexing; results may be
	// incomplete (ask again later).
	Indexing bool `json:"indexing,omitempty"`
	// Errors of servers that failed while others answered.
	Errors []string `json:"errors,omitempty"`
}

// LocationsAnswer answers definition, references and implementation.
type LocationsAnswer struct {
	Answer
	Locations []Location `json:"locations"`
}

// HoverAnswer answers hover; Hover is nil when there is nothing to show.
type HoverAnswer struct {
	Answer
	Hover *Hover `json:"hover"`
}

// SymbolsAnswer answers document and workspace symbols.
type SymbolsAnswer struct {
	Answer
	Symbols []Symbol `json:"symbols"`
}

// CallItemsAnswer answers prepareCallHierarchy.
type CallItemsAnswer struct {
	Answer
	Items []CallItem `json:"items"`
}

// CallsAnswer answers incoming and outgoing calls.
type CallsAnswer struct {
	Answer
	Calls []Call `json:"calls"`
}

// Definition returns where the symbol at pos is defined. pos is an LSP
// position (0-based, UTF-16 code units, which every server uses with
// agentlsp). The file is synced from disk first if it changed.
func (s *Session) Definition(ctx context.Context, path string, pos Position) (*LocationsAnswer, error) {
	return s.locations(ctx, path, "textDocument/definition", pos, nil)
}

// Implementation returns the implementations of the interface or method
// at pos.
func (s *Session) Implementation(ctx context.Context, path string, pos Position) (*LocationsAnswer, error) {
	return s.locations(ctx, path, "textDocument/implementation", pos, nil)
}

// References returns the references to the symbol at pos, its
// declaration included.
func (s *Session) References(ctx context.Context, path string, pos Position) (*LocationsAnswer, error) {
	return s.locations(ctx, path, "textDocument/references", pos, map[string]any{"includeDeclaration": true})
}

func (s *Session) locations(ctx context.Context, path, method string, pos Position, refCtx any) (*LocationsAnswer, error) {
	extra := map[string]any{}
	if refCtx != nil {
		extra["context"] = refCtx
	}
	results, ans, err := s.positionRequest(ctx, path, method, pos, extra)
	if err != nil {
		return nil, err
	}
	out := &LocationsAnswer{Answer: ans, Locations: []Location{}}
	seen := map[Location]bool{}
	for _, l := range collect(results, &out.Answer, ParseLocations) {
		if !seen[l] { // several servers may give the same location
			seen[l] = true
			out.Locations = append(out.Locations, l)
		}
	}
	return out, nil
}

// collect parses every server's result and concatenates them; a result
// that does not parse becomes one of the answer's errors.
func collect[T any](results []messages.ServerResult, ans *Answer, parse func(json.RawMessage) ([]T, error)) []T {
	out := []T{}
	for _, r := range results {
		items, err := parse(r.Result)
		if err != nil {
			ans.Errors = append(ans.Errors, r.ServerID+": "+err.Error())
			continue
		}
		out = append(out, items...)
	}
	return out
}

// Hover returns the documentation and type of the symbol at pos.
func (s *Session) Hover(ctx context.Context, path string, pos Position) (*HoverAnswer, error) {
	results, ans, err := s.positionRequest(ctx, path, "textDocument/hover", pos, nil)
	if err != nil {
		return nil, err
	}
	out := &HoverAnswer{Answer: ans}
	for _, r := range results {
		h, err := ParseHover(r.Result)
		if err != nil {
			out.Errors = append(out.Errors, r.ServerID+": "+err.Error())
			continue
		}
		if h == nil {
			continue
		}
		if out.Hover == nil {
			out.Hover = h
		} else {
			out.Hover.Text += "\n\n" + h.Text
		}
	}
	return out, nil
}

// DocumentSymbols returns the symbols of a file, as a tree when the server
// gives one.
func (s *Session) DocumentSymbols(ctx context.Context, path string) (*SymbolsAnswer, error) {
	_, uri, _, err := s.current(ctx, path)
	if err != nil {
		return nil, err
	}
	results, ans, err := s.fileRequest(ctx, path, "textDocument/documentSymbol", map[string]any{
		"textDocument": map[string]string{"uri": uri},
	})
	if err != nil {
		return nil, err
	}
	out := &SymbolsAnswer{Answer: ans}
	out.Symbols = collect(results, &out.Answer, func(raw json.RawMessage) ([]Symbol, error) {
		return ParseDocumentSymbols(raw, uri)
	})
	return out, nil
}

// WorkspaceSymbols searches the symbols of every running server (or, when
// none runs, of the servers the workspace's root markers imply).
func (s *Session) WorkspaceSymbols(ctx context.Context, query string) (*SymbolsAnswer, error) {
	id := s.rt.nextID()
	params, _ := json.Marshal(map[string]string{"query": query})
	res, err := s.rt.ask(ctx, s.rt.router, &messages.WorkspaceRequest{ID: id, Method: "workspace/symbol", Params: params},
		s.rt.cancelRequest(id))
	if err != nil {
		return nil, err
	}
	results, ans, err := answered(res.(*messages.FileResponse))
	if err != nil {
		return nil, err
	}
	out := &SymbolsAnswer{Answer: ans}
	out.Symbols = collect(results, &out.Answer, ParseWorkspaceSymbols)
	return out, nil
}

// PrepareCallHierarchy returns the call hierarchy items at pos, to ask for
// their incoming and outgoing calls.
func (s *Session) PrepareCallHierarchy(ctx context.Context, path string, pos Position) (*CallItemsAnswer, error) {
	results, ans, err := s.positionRequest(ctx, path, "textDocument/prepareCallHierarchy", pos, nil)
	if err != nil {
		return nil, err
	}
	out := &CallItemsAnswer{Answer: ans}
	out.Items = collect(results, &out.Answer, ParseCallItems)
	return out, nil
}

// IncomingCalls returns the calls to a call hierarchy item.
func (s *Session) IncomingCalls(ctx context.Context, item CallItem) (*CallsAnswer, error) {
	return s.calls(ctx, item, "callHierarchy/incomingCalls", ParseIncomingCalls)
}

// OutgoingCalls returns the calls a call hierarchy item makes.
func (s *Session) OutgoingCalls(ctx context.Context, item CallItem) (*CallsAnswer, error) {
	return s.calls(ctx, item, "callHierarchy/outgoingCalls", ParseOutgoingCalls)
}

func (s *Session) calls(ctx context.Context, item CallItem, method string, parse func(json.RawMessage) ([]Call, error)) (*CallsAnswer, error) {
	if len(item.Raw) == 0 || item.Path == "" {
		return nil, errors.New("agentlsp: call hierarchy item without its server data: use one from PrepareCallHierarchy")
	}
	results, ans, err := s.fileRequest(ctx, item.Path, method, map[string]any{"item": item.Raw})
	if err != nil {
		return nil, err
	}
	out := &CallsAnswer{Answer: ans}
	out.Calls = collect(results, &out.Answer, parse)
	return out, nil
}

// positionRequest syncs the file from disk, checks pos against its text,
// and sends a textDocument/position request.
func (s *Session) positionRequest(ctx context.Context, path, method string, pos Position, extra map[string]any) ([]messages.ServerResult, Answer, error) {
	_, uri, text, err := s.current(ctx, path)
	if err != nil {
		return nil, Answer{}, err
	}
	if err := CheckPosition(text, pos); err != nil {
		return nil, Answer{}, fmt.Errorf("agentlsp: %s: %w", path, err)
	}
	params := map[string]any{
		"textDocument": map[string]string{"uri": uri},
		"position":     map[string]int{"line": pos.Line, "character": pos.Character},
	}
	for k, v := range extra {
		params[k] = v
	}
	return s.fileRequest(ctx, path, method, params)
}

// CheckPosition reports an LSP position (UTF-16) past the end of its line
// or of the text, or inside a character.
func CheckPosition(text string, pos Position) error {
	line, err := textpos.Line(text, pos.Line)
	if err != nil {
		return err
	}
	if _, err = textpos.Units(line, pos.Character, textpos.UTF16, textpos.UTF16); err != nil {
		return fmt.Errorf("line %d: %w", pos.Line+1, err)
	}
	return nil
}

// fileRequest sends a request to the servers of a file and splits the
// answers into results and an Answer summary.
func (s *Session) fileRequest(ctx context.Context, path, method string, params any) ([]messages.ServerResult, Answer, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, Answer{}, err
	}
	id := s.rt.nextID()
	res, err := s.rt.ask(ctx, s.rt.router, &messages.FileRequest{ID: id, Path: path, Method: method, Params: raw},
		s.rt.cancelRequest(id))
	if err != nil {
		return nil, Answer{}, err
	}
	return answered(res.(*messages.FileResponse))
}

// answered keeps the successful results; it fails only when none is.
func answered(fr *messages.FileResponse) ([]messages.ServerResult, Answer, error) {
	if fr.Err != nil {
		return nil, Answer{}, fr.Err
	}
	var ok []messages.ServerResult
	var ans Answer
	var errs []error
	for _, r := range fr.Results {
		ans.Indexing = ans.Indexing || r.Indexing
		if r.Err != nil {
			errs = append(errs, r.Err)
			ans.Errors = append(ans.Errors, r.Err.Error())
			continue
		}
		ok = append(ok, r)
		ans.Servers = append(ans.Servers, r.ServerID)
	}
	if len(ok) == 0 {
		return nil, ans, fmt.Errorf("%w: %w", ErrNoResult, errors.Join(errs...))
	}
	return ok, ans, nil
}
