package actors

import (
	"encoding/json"
	"strconv"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// onEvent handles a notification (or an observed request) from the server.
func (a *serverActor) onEvent(ctx actor.Context, m *incEvent) {
	if a.inc == nil || m.inc != a.inc.n {
		return
	}
	switch m.method {
	case "textDocument/publishDiagnostics":
		a.onPublish(ctx, m)
	case "$/progress":
		a.onProgress(ctx, m.params)
	case "client/registerCapability":
		if a.onRegister(m.params) {
			a.onRefresh(ctx) // a new pull provider pulls the open documents
		}
	case "workspace/diagnostic/refresh":
		a.onRefresh(ctx)
	case "client/unregisterCapability":
		a.onUnregister(m.params)
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.params, &p) == nil {
			a.cfg.Logger.Debug("server message", "server", a.cfg.Server.ID, "type", p.Type, "message", p.Message)
		}
	}
}

// wireDiagnostic is an LSP diagnostic as servers send it.
type wireDiagnostic struct {
	Range struct {
		Start wirePosition `json:"start"`
		End   wirePosition `json:"end"`
	} `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

type wirePosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

func (w *wireDiagnostic) value() messages.Diagnostic {
	return messages.Diagnostic{
		Range: messages.Range{
			Start: messages.Position{Line: w.Range.Start.Line, Character: w.Range.Start.Character},
			End:   messages.Position{Line: w.Range.End.Line, Character: w.Range.End.Character},
		},
		Severity: messages.Severity(w.Severity),
		Code:     codeText(w.Code),
		Source:   w.Source,
		Message:  w.Message,
	}
}

// codeText renders a diagnostic code (number or string) as text.
func codeText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return string(raw)
}

func (a *serverActor) onPublish(ctx actor.Context, m *incEvent) {
	var p struct {
		URI         string           `json:"uri"`
		Version     *int32           `json:"version"`
		Diagnostics []wireDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(m.params, &p); err != nil {
		a.cfg.Logger.Warn("malformed publishDiagnostics", "server", a.cfg.Server.ID, "err", err)
		return
	}
	uri := p.URI
	if path := URIToPath(uri); path != "" {
		uri = PathToURI(path) // one spelling of each URI, whatever the server's encoding
	}
	out := &messages.PublishedDiagnostics{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, URI: uri,
		Incarnation: m.inc, Diagnostics: make([]messages.Diagnostic, len(p.Diagnostics)),
	}
	if p.Version != nil {
		out.Version, out.HasVersion = *p.Version, true
	}
	for i := range p.Diagnostics {
		out.Diagnostics[i] = p.Diagnostics[i].value()
	}
	a.publish(ctx, out)
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
	switch p.Value.Kind {
	case "begin":
		a.progress[token] = true
	case "end":
		delete(a.progress, token)
	}
	msg := &messages.Progress{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, Token: token, Kind: p.Value.Kind,
		Title: p.Value.Title, Message: p.Value.Message, Active: a.indexing(),
	}
	for _, o := range a.cfg.Observers {
		ctx.Send(o, msg)
	}
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
