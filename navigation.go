package agentlsp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/results"
)

// Definition returns where the symbol at pos is defined. pos is an LSP
// position (0-based, UTF-16 code units, which every server uses with
// agentlsp). The file is synced from disk first if it changed.
func (s *Session) Definition(ctx context.Context, path string, pos Position) (*results.LocationsAnswer, error) {
	ans, err := s.locations(ctx, path, "textDocument/definition", pos, nil)
	if err == nil {
		s.rt.keepOpen(ans.Locations)
	}
	return ans, err
}

// keepOpen asks the router to keep the files of a definition's locations
// open on servers that keep such files (config.Server.OpenTargets): the
// next question about the declaration (a hover over a call to it) is
// answered faster. It does not wait.
func (rt *Runtime) keepOpen(locs []results.Location) {
	var files []string
	for _, l := range locs {
		if l.Path != "" && !slices.Contains(files, l.Path) {
			files = append(files, l.Path)
		}
	}
	if len(files) > 0 && !rt.closing() {
		rt.sys.Root.Send(rt.router, &messages.KeepOpen{Paths: files})
	}
}

// Implementation returns the implementations of the interface or method
// at pos.
func (s *Session) Implementation(ctx context.Context, path string, pos Position) (*results.LocationsAnswer, error) {
	return s.locations(ctx, path, "textDocument/implementation", pos, nil)
}

// References returns the references to the symbol at pos, its
// declaration included.
func (s *Session) References(ctx context.Context, path string, pos Position) (*results.LocationsAnswer, error) {
	return s.locations(ctx, path, "textDocument/references", pos, map[string]any{"includeDeclaration": true})
}

func (s *Session) locations(ctx context.Context, path, method string, pos Position, refCtx any) (*results.LocationsAnswer, error) {
	var extra map[string]any
	if refCtx != nil {
		extra = map[string]any{"context": refCtx}
	}
	rs, _, ans, err := s.documentRequest(ctx, path, method, &pos, extra)
	if err != nil {
		return nil, err
	}
	out := results.Locations(rs, ans)
	for _, l := range out.Locations {
		out.Unwatched = s.rt.unwatched(out.Unwatched, l.Path)
	}
	return out, nil
}

// skipped are the directory names the file watcher does not look into.
var skipped = paths.NewFilter(nil)

// unwatched adds file to list (once) when it lies in a directory the
// runtime's file watcher does not look into (results.Answer.Unwatched). A
// runtime without a watcher (NoWatch, the CLI's query, which starts one
// per call) notes nothing.
func (rt *Runtime) unwatched(list []string, file string) []string {
	if file == "" || rt.cfg.NoWatch || slices.Contains(list, file) || skipped.Unwatched(rt.workspace, file) == "" {
		return list
	}
	return append(list, file)
}

// Hover returns the documentation and type of the symbol at pos.
func (s *Session) Hover(ctx context.Context, path string, pos Position) (*results.HoverAnswer, error) {
	rs, _, ans, err := s.documentRequest(ctx, path, "textDocument/hover", &pos, nil)
	if err != nil {
		return nil, err
	}
	return results.Hovers(rs, ans), nil
}

// DocumentSymbols returns the symbols of a file, as a tree when the server
// gives one.
func (s *Session) DocumentSymbols(ctx context.Context, path string) (*results.SymbolsAnswer, error) {
	rs, uri, ans, err := s.documentRequest(ctx, path, "textDocument/documentSymbol", nil, nil)
	if err != nil {
		return nil, err
	}
	out := &results.SymbolsAnswer{Answer: ans}
	out.Symbols = results.Collect(rs, &out.Answer, func(raw json.RawMessage) ([]results.Symbol, error) {
		return results.ParseDocumentSymbols(raw, uri)
	})
	return out, nil
}

// Probe starts every server the workspace's root markers imply, installed
// or not (those not installed are reported broken, with the cause, by
// Servers), and waits for their first answers (a symbol search), at most
// until ctx ends. WorkspaceSymbols leaves out the implied servers that are
// not installed.
func (rt *Runtime) Probe(ctx context.Context) error {
	id := rt.nextID()
	params, _ := json.Marshal(map[string]string{"query": ""})
	res, err := rt.ask(ctx, rt.router, &messages.WorkspaceRequest{ID: id, Method: "workspace/symbol", Params: params, All: true},
		cancelRequest(id))
	if err != nil {
		return err
	}
	return res.(*messages.FileResponse).Err
}

// WorkspaceSymbols searches the symbols of the whole workspace: every
// server running and every root the workspace's markers imply (started as
// needed); with a path, only the servers of that file. The answer names
// the servers that answered and those still starting.
func (s *Session) WorkspaceSymbols(ctx context.Context, query string, path ...string) (*results.SymbolsAnswer, error) {
	id := s.rt.nextID()
	params, _ := json.Marshal(map[string]string{"query": query})
	req := &messages.WorkspaceRequest{ID: id, Method: "workspace/symbol", Params: params}
	if len(path) > 0 {
		req.Path, req.Session = path[0], s.id // opened: tsserver has no project before
		defer s.released()
	}
	res, err := s.rt.ask(ctx, s.rt.router, req, cancelRequest(id))
	if err != nil {
		return nil, err
	}
	rs, ans, err := results.Split(res.(*messages.FileResponse))
	if err != nil {
		return nil, err
	}
	out := &results.SymbolsAnswer{Answer: ans}
	out.Symbols = results.Collect(rs, &out.Answer, results.ParseWorkspaceSymbols)
	for _, sym := range out.Symbols {
		out.Unwatched = s.rt.unwatched(out.Unwatched, sym.Path)
	}
	return out, nil
}

// PrepareCallHierarchy returns the call hierarchy items at pos, to ask for
// their incoming and outgoing calls.
func (s *Session) PrepareCallHierarchy(ctx context.Context, path string, pos Position) (*results.CallItemsAnswer, error) {
	rs, _, ans, err := s.documentRequest(ctx, path, "textDocument/prepareCallHierarchy", &pos, nil)
	if err != nil {
		return nil, err
	}
	out := &results.CallItemsAnswer{Answer: ans}
	out.Items = results.Collect(rs, &out.Answer, results.ParseCallItems)
	for _, it := range out.Items {
		out.Unwatched = s.rt.unwatched(out.Unwatched, it.Path)
	}
	return out, nil
}

// IncomingCalls returns the calls to a call hierarchy item.
func (s *Session) IncomingCalls(ctx context.Context, item results.CallItem) (*results.CallsAnswer, error) {
	return s.calls(ctx, item, "callHierarchy/incomingCalls", results.ParseIncomingCalls)
}

// OutgoingCalls returns the calls a call hierarchy item makes.
func (s *Session) OutgoingCalls(ctx context.Context, item results.CallItem) (*results.CallsAnswer, error) {
	return s.calls(ctx, item, "callHierarchy/outgoingCalls", results.ParseOutgoingCalls)
}

func (s *Session) calls(ctx context.Context, item results.CallItem, method string, parse func(json.RawMessage) ([]results.Call, error)) (*results.CallsAnswer, error) {
	if len(item.Raw) == 0 || item.Path == "" {
		return nil, errors.New("agentlsp: call hierarchy item without its server data: use one from PrepareCallHierarchy")
	}
	rs, ans, err := s.fileRequest(ctx, item.Path, method, map[string]any{"item": item.Raw})
	if err != nil {
		return nil, err
	}
	out := &results.CallsAnswer{Answer: ans}
	out.Calls = results.Collect(rs, &out.Answer, parse)
	for _, c := range out.Calls {
		out.Unwatched = s.rt.unwatched(out.Unwatched, c.Item.Path)
	}
	return out, nil
}

// documentRequest asks the servers of a file, as it is now, about at
// (checked against its text; nil: the whole document), in one message:
// the router opens the file for the session, syncs it from disk if it
// changed and sends the request behind the text. It returns the results,
// the document's URI and the summary.
func (s *Session) documentRequest(ctx context.Context, path, method string, at *Position, params map[string]any) ([]messages.ServerResult, string, results.Answer, error) {
	var raw json.RawMessage
	if len(params) > 0 {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, "", results.Answer{}, err
		}
	}
	id := s.rt.nextID()
	defer s.released()
	res, err := s.rt.ask(ctx, s.rt.router, &messages.FileRequest{ID: id, Session: s.id, Path: path, Method: method, Params: raw, At: at},
		cancelRequest(id))
	if err != nil {
		return nil, "", results.Answer{}, err
	}
	fr := res.(*messages.FileResponse)
	if fr.Err != nil {
		return nil, "", results.Answer{}, asGiven(fr.Err, path)
	}
	rs, ans, err := results.Split(fr)
	return rs, fr.URI, ans, err
}

// fileRequest sends a request to the servers of a file and splits the
// answers into results and an Answer summary.
func (s *Session) fileRequest(ctx context.Context, path, method string, params any) ([]messages.ServerResult, results.Answer, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, results.Answer{}, err
	}
	id := s.rt.nextID()
	res, err := s.rt.ask(ctx, s.rt.router, &messages.FileRequest{ID: id, Path: path, Method: method, Params: raw},
		cancelRequest(id))
	if err != nil {
		return nil, results.Answer{}, err
	}
	return results.Split(res.(*messages.FileResponse))
}
