package fakelsp

import (
	"encoding/json"
	"slices"
)

// request is a request from the client being answered.
type request struct {
	id     json.RawMessage
	method string
	params json.RawMessage
}

// defaultResults answers navigation methods that --responses does not name.
var defaultResults = map[string]any{
	"textDocument/hover":                map[string]any{"contents": map[string]any{"kind": "markdown", "value": "fake hover"}},
	"textDocument/definition":           nil,
	"textDocument/declaration":          nil,
	"textDocument/typeDefinition":       nil,
	"textDocument/implementation":       nil,
	"textDocument/references":           nil,
	"textDocument/documentSymbol":       nil,
	"workspace/symbol":                  nil,
	"textDocument/prepareCallHierarchy": nil,
	"callHierarchy/incomingCalls":       nil,
	"callHierarchy/outgoingCalls":       nil,
}

// workspaceWide are the methods --ready-after answers with nothing.
var workspaceWide = map[string]bool{"textDocument/references": true, "textDocument/implementation": true,
	"callHierarchy/incomingCalls": true, "workspace/symbol": true}

// handleRequest answers a request, or misbehaves as the flags say.
func (s *server) handleRequest(m *message) {
	r := &request{id: m.ID, method: m.Method, params: m.Params}
	s.perMethod[r.method]++
	switch {
	case s.cfg.hangOn[r.method]:
		s.addPending(r.id)
	case s.cfg.garbageOn[r.method]:
		s.addPending(r.id) // never answered, but $/cancelRequest still works
		s.write([]byte("{not json!!"))
	case s.perMethod[r.method] <= s.cfg.contentModified[r.method], s.cfg.modifiedInWork[r.method] && s.working.Load():
		s.reply(r, nil, &rpcError{Code: codeContentModified, Message: "content modified"})
	default:
		s.dispatch(r)
	}
}

// dispatch answers a request normally.
func (s *server) dispatch(r *request) {
	switch r.method {
	case "initialize":
		s.initialize(r)
	case "shutdown":
		s.shutdownRequest(r)
	case "fake/documentText":
		s.documentText(r)
	case "fake/stats":
		s.mu.Lock()
		max := s.maxPending
		s.mu.Unlock()
		s.reply(r, map[string]any{"maxPending": max}, nil)
	case "textDocument/diagnostic":
		if s.cfg.pull || s.cfg.pullRegister {
			s.pullDiagnostics(r)
			return
		}
		s.reply(r, nil, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + r.method})
	default:
		s.navigate(r)
	}
}

// navigate answers from --responses, then from defaultResults.
func (s *server) navigate(r *request) {
	if s.notReady.Load() && workspaceWide[r.method] {
		s.reply(r, []any{}, nil) // nothing found: --ready-after
		return
	}
	if raw, ok := s.cfg.responses[r.method]; ok {
		s.reply(r, raw, nil)
		return
	}
	if result, ok := defaultResults[r.method]; ok {
		s.reply(r, result, nil)
		return
	}
	s.reply(r, nil, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + r.method})
}

// handleNotification handles a notification; done reports exit.
func (s *server) handleNotification(m *message) (code int, done bool) {
	switch m.Method {
	case "initialized":
		s.afterInitialized()
	case "exit":
		if !s.cfg.ignoreShutdown {
			return s.cfg.exitCode, true
		}
	case "textDocument/didOpen":
		s.didOpen(m.Params)
	case "textDocument/didChange":
		s.didChange(m.Params)
	case "textDocument/didClose":
		s.didClose(m.Params)
	case "textDocument/didSave":
		s.didSave(m.Params)
	case "$/cancelRequest":
		s.cancel(m.Params)
	case "workspace/didChangeWatchedFiles":
		s.didChangeWatchedFiles(m.Params)
	}
	return 0, false
}

// initialize negotiates the position encoding and answers, after asking
// workspace/configuration with --config-first.
func (s *server) initialize(r *request) {
	var p struct {
		Capabilities struct {
			General struct {
				PositionEncodings []string `json:"positionEncodings"`
			} `json:"general"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(r.params, &p); err != nil {
		s.reply(r, nil, &rpcError{Code: codeInvalidParams, Message: err.Error()})
		return
	}
	s.utf8 = s.cfg.positionEnc == "utf-8" && slices.Contains(p.Capabilities.General.PositionEncodings, "utf-8")
	answer := func(*message) {
		s.reply(r, s.initializeResult(), nil)
		if s.cfg.unknownResponse {
			s.write(responseBody(json.RawMessage("987654"), nil, nil))
		}
	}
	if !s.cfg.configFirst {
		answer(nil)
		return
	}
	items := []map[string]string{{"section": "fake"}, {"section": "fake.nested"}, {"section": "absent"}}
	s.call(s.internalID(), "workspace/configuration", map[string]any{"items": items}, answer)
}

// initializeResult is the InitializeResult the flags describe.
func (s *server) initializeResult() map[string]any {
	sync := map[string]any{"openClose": true, "change": s.cfg.syncKind, "save": map[string]any{"includeText": false}}
	if s.cfg.saveRegister {
		delete(sync, "save")
	}
	caps := map[string]any{
		"textDocumentSync": sync,
		"hoverProvider":    true, "definitionProvider": true, "referencesProvider": true,
		"implementationProvider": true, "documentSymbolProvider": true,
		"workspaceSymbolProvider": true, "callHierarchyProvider": true,
	}
	if s.cfg.pull && !s.cfg.pullRegister {
		caps["diagnosticProvider"] = pullOptions(s.cfg.interFile)
	}
	for _, c := range s.cfg.without {
		delete(caps, c)
	}
	if s.utf8 {
		caps["positionEncoding"] = "utf-8"
	}
	return map[string]any{
		"capabilities": caps,
		"serverInfo":   map[string]any{"name": "fakelsp", "version": "1"},
	}
}

// pullOptions are the DiagnosticOptions of pull diagnostics.
func pullOptions(interFile bool) map[string]any {
	return map[string]any{"identifier": "fake", "interFileDependencies": interFile, "workspaceDiagnostics": false}
}

// shutdownRequest answers null, or never with --ignore-shutdown.
func (s *server) shutdownRequest(r *request) {
	if s.cfg.ignoreShutdown {
		s.addPending(r.id)
		return
	}
	s.shutdown = true
	s.reply(r, nil, nil)
}

// cancel answers a pending request with RequestCancelled.
func (s *server) cancel(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.ID) == 0 {
		s.log.printf("fakelsp: error: bad $/cancelRequest params %s", params)
		return
	}
	if s.takePending(p.ID) {
		s.write(responseBody(p.ID, nil, &rpcError{Code: codeRequestCancelled, Message: "cancelled"}))
	}
}
