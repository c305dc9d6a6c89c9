package server

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// onEvent handles a notification (or an observed request) from the server.
func (a *serverActor) onEvent(ctx actor.Context, m *incEvent) {
	if !a.current(m.gen) {
		return
	}
	switch m.method {
	case "textDocument/publishDiagnostics":
		a.onPublish(ctx, m)
	case "$/progress":
		a.onProgress(ctx, m.params)
	case "client/registerCapability":
		offered := a.offersPull()
		if a.onRegister(m.params) {
			a.tellPullsOffered(ctx, offered)
			a.onRefresh(ctx) // a new pull provider pulls the open documents
		}
	case "workspace/diagnostic/refresh":
		a.onRefresh(ctx)
	case "client/unregisterCapability":
		offered := a.offersPull()
		a.onUnregister(m.params)
		a.tellPullsOffered(ctx, offered)
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.params, &p) == nil {
			a.cfg.Logger.Debug("server message", "server", a.cfg.Server.ID, "method", m.method, "type", p.Type, "message", p.Message)
			a.onServerLog(ctx, p.Message)
			a.onLoadMessage(ctx, p.Type, p.Message)
		}
	}
}

func (a *serverActor) onPublish(ctx actor.Context, m *incEvent) {
	if a.caps.tsserver {
		return // the pulls say it all (tsserver.go)
	}
	var p struct {
		URI         string           `json:"uri"`
		Version     *int32           `json:"version"`
		Diagnostics []wireDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(m.params, &p); err != nil {
		a.cfg.Logger.Warn("malformed publishDiagnostics", "server", a.cfg.Server.ID, "err", err)
		return
	}
	out := &messages.PublishedDiagnostics{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root,
		URI:         paths.Normalize(p.URI), // one spelling of each URI, whatever the server's encoding
		Incarnation: m.gen,
		View:        a.st.docs.Seq(), // no change sent since is described
	}
	if p.Version != nil {
		out.Version, out.HasVersion = *p.Version, true
	}
	out.Diagnostics = a.ofCheck(out.URI, out.Version, out.HasVersion, diagnosticsOf(p.Diagnostics))
	a.tellObservers(ctx, out)
}

func (a *serverActor) onProgress(ctx actor.Context, params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind    string `json:"kind"`
			Title   string `json:"title"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil || p.Value.Kind == "" {
		return
	}
	token := tokenText(p.Token)
	a.cfg.Logger.Debug("progress", "server", a.cfg.Server.ID, "token", token, "kind", p.Value.Kind,
		"title", p.Value.Title, "message", p.Value.Message)
	if a.loadProgress(ctx, token, p.Value.Kind, p.Value.Title, p.Value.Message) {
		return // a failure to load the project, reported as work: no work on the files
	}
	diagnosing := a.progress[token] == workDiagnosis
	switch p.Value.Kind {
	case "begin":
		diagnosing = strings.HasPrefix(p.Value.Title, "diagnosing")
		kind := workIndexing
		switch {
		case diagnosing:
			kind, a.signals = workDiagnosis, true
		case a.isCheck(p.Value.Title):
			kind = workCheck
			a.checkBegan(ctx, p.Value.Title)
		default:
			a.works++
		}
		a.progress[token] = kind
	case "end":
		if a.progress[token] == workIndexing && a.check.owed {
			a.armCheckGrace() // the server begins its check once it has loaded
		}
		delete(a.progress, token)
		defer a.askAgainAfterIndex(ctx)
	}
	msg := &messages.Progress{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, Token: token, Kind: p.Value.Kind,
		Title: p.Value.Title, Message: p.Value.Message, Active: a.indexing() || a.checking(),
		Diagnosing: diagnosing, Diagnoses: a.inProgress(workDiagnosis),
	}
	a.tellObservers(ctx, msg)
}

// The kinds of work a server reports progress for: a diagnosis of changes
// (gopls with verboseWorkDoneProgress: "diagnosing ...") is the server's
// own signal that diagnostics are complete when it ends; a check on save
// (CheckOnSave: rust-analyzer's "cargo check") holds pulls answered during
// it (savecheck.go); any other work is indexing, and makes answers
// possibly incomplete.
const (
	workIndexing = iota + 1
	workDiagnosis
	workCheck
)

// inProgress is the number of works of kind in progress.
func (a *serverActor) inProgress(kind int) int {
	n := 0
	for _, k := range a.progress {
		if k == kind {
			n++
		}
	}
	return n
}

func tokenText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return strconv.FormatInt(n, 10)
	}
	return string(raw)
}

// onRegister records registrations; it reports whether one is a pull
// diagnostics provider.
func (a *serverActor) onRegister(params json.RawMessage) (pull bool) {
	var p struct {
		Registrations []struct {
			ID              string          `json:"id"`
			Method          string          `json:"method"`
			RegisterOptions json.RawMessage `json:"registerOptions"`
		} `json:"registrations"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	for _, r := range p.Registrations {
		a.regs[r.ID] = messages.Registration{ID: r.ID, Method: r.Method, RegisterOptions: r.RegisterOptions}
		delete(a.matchers, r.ID)
		pull = pull || r.Method == pullMethod
	}
	return pull
}

func (a *serverActor) onUnregister(params json.RawMessage) {
	var p struct {
		// The LSP spec spells it "unregisterations".
		Unregisterations []struct {
			ID string `json:"id"`
		} `json:"unregisterations"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	for _, r := range p.Unregisterations {
		delete(a.regs, r.ID)
		delete(a.matchers, r.ID)
	}
}

// tellPullsOffered tells the observers whether the server offers pull
// diagnostics when that changed from before (a registration or its
// withdrawal): documents sent before said otherwise (PullsOffered).
func (a *serverActor) tellPullsOffered(ctx actor.Context, before bool) {
	if now := a.offersPull(); now != before {
		a.tellObservers(ctx, &messages.PullsOffered{ServerID: a.cfg.Server.ID, Root: a.cfg.Root, Pulls: now})
	}
}
