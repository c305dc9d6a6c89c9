package fakelsp

import (
	"encoding/json"
	"strconv"
)

// progressToken is the token of --progress.
const progressToken = "fake-index"

// readyLine is what --ready-after logs once the fake is ready.
const readyLine = "fake: found the workspace's files"

// afterInitialized sends the fake's own requests once the client is ready:
// dynamic registration, --server-request in order, then --progress.
func (s *server) afterInitialized() {
	if s.cfg.pullRegister {
		reg := map[string]any{
			"id": "fake-pull", "method": "textDocument/diagnostic", "registerOptions": pullOptions(s.cfg.interFile),
		}
		s.call(s.internalID(), "client/registerCapability", map[string]any{"registrations": []any{reg}}, nil)
	}
	if s.cfg.saveRegister {
		reg := map[string]any{"id": "fake-save", "method": "textDocument/didSave",
			"registerOptions": map[string]any{"includeText": false}}
		s.call(s.internalID(), "client/registerCapability", map[string]any{"registrations": []any{reg}}, nil)
	}
	for i, sr := range s.cfg.serverRequests {
		s.call(serverRequestID(i), sr.method, sr.params, nil)
	}
	if s.cfg.readyAfter > 0 {
		s.notReady.Store(true)
		s.sched.after(s.cfg.readyAfter, func() {
			s.notReady.Store(false)
			s.notify("window/logMessage", map[string]any{"type": 3, "message": readyLine})
		})
	}
	if s.cfg.loadFile != "" {
		s.loadProject()
	}
	if s.cfg.checkOnSave > 0 {
		s.startCheck()
	}
	if s.cfg.progress > 0 {
		s.working.Store(true)
		create := map[string]any{"token": progressToken}
		s.call(s.internalID(), "window/workDoneProgress/create", create, s.startProgress)
	}
}

// serverRequestID is the id of the i-th --server-request: 0, "s-1", 2, 3...
// so that both id 0 and a string id are exercised.
func serverRequestID(i int) json.RawMessage {
	if i == 1 {
		return json.RawMessage(`"s-1"`)
	}
	return json.RawMessage(strconv.Itoa(i))
}

// startProgress begins the progress once the client accepted the token, and
// ends it --progress later.
func (s *server) startProgress(resp *message) {
	if len(resp.Error) > 0 {
		s.log.printf("fakelsp: client refused progress token: %s", resp.Error)
		s.working.Store(false)
		return
	}
	s.notify("$/progress", map[string]any{
		"token": progressToken, "value": map[string]any{"kind": "begin", "title": "indexing"},
	})
	s.sched.after(s.cfg.progress, func() {
		s.working.Store(false)
		s.notify("$/progress", map[string]any{
			"token": progressToken, "value": map[string]any{"kind": "end"},
		})
	})
}
