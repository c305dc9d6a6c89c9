package actors

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// Pull diagnostics (LSP 3.17 textDocument/diagnostic). When the server
// offers them (statically, or by dynamic registrations, possibly several
// with their own identifiers), the actor pulls after every open and
// change, for every identifier in parallel, and publishes the combined
// result as one PublishedDiagnostics with Pulled set, describing the
// version it pulled for: complete, so nobody needs to wait for phases. At
// most one round per document is in flight; a change during a round
// triggers one more round when it ends. resultIds are kept per identifier
// and "unchanged" reports reuse the previous items.

const pullMethod = "textDocument/diagnostic"

// pullState is the pull state of one document.
type pullState struct {
	version   int32 // the version the round in flight pulls for
	inflight  int
	again     bool // a newer version arrived during the round
	resultIDs map[string]string
	items     map[string][]messages.Diagnostic
	change    *pullChange // the change whose re-pulls this round is part of
}

// pullChange holds back the pulled result of a changed document until the
// other open documents re-pulled because of it (inter-file dependencies)
// have published theirs: whoever waits for the change's diagnostics then
// sees its effects on importers too.
type pullChange struct {
	uri  string
	left int
	held *messages.PublishedDiagnostics
}

// pullDone is one identifier's answer.
type pullDone struct {
	inc        int
	uri        string
	version    int32
	identifier string
	result     json.RawMessage
	err        error
}

// providers lists the pull providers in force.
func (a *serverActor) providers() []*pullProvider {
	var out []*pullProvider
	if a.caps.pull != nil {
		out = append(out, a.caps.pull)
	}
	ids := make([]string, 0, len(a.regs))
	for id, r := range a.regs {
		if r.Method == pullMethod {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, parsePullProvider(a.regs[id].RegisterOptions))
	}
	return out
}

// pullAfterChange pulls a changed document and, when a provider has
// inter-file dependencies, the other open documents, publishing the changed
// document's result last.
func (a *serverActor) pullAfterChange(ctx actor.Context, d *document) {
	if !a.interFile() {
		a.pull(ctx, d)
		return
	}
	ch := &pullChange{uri: d.uri}
	a.pullFor(ctx, d, ch)
	for _, o := range a.st.docs {
		if o.open && o.uri != d.uri {
			a.pullFor(ctx, o, ch)
		}
	}
}

// pull starts a round of pulls for d (or marks one more round).
func (a *serverActor) pull(ctx actor.Context, d *document) { a.pullFor(ctx, d, nil) }

// pullFor starts a round of pulls for d, part of change ch (nil for none).
func (a *serverActor) pullFor(ctx actor.Context, d *document, ch *pullChange) {
	provs := a.providers()
	if len(provs) == 0 || !a.running() {
		return
	}
	ps := a.pulls[d.uri]
	if ps == nil {
		ps = &pullState{resultIDs: map[string]string{}, items: map[string][]messages.Diagnostic{}}
		a.pulls[d.uri] = ps
	}
	if ps.inflight > 0 {
		ps.again = true
		return
	}
	ps.version, ps.inflight, ps.change = d.version, len(provs), ch
	if ch != nil {
		ch.left++
	}
	conn, send, inc := a.inc.connection(), a.send(ctx), a.inc.n
	for _, p := range provs {
		params := map[string]any{"textDocument": textDoc(d.uri)}
		if p.identifier != "" {
			params["identifier"] = p.identifier
		}
		if prev := ps.resultIDs[p.identifier]; prev != "" {
			params["previousResultId"] = prev
		}
		callCtx, cancel := context.WithTimeout(context.Background(), a.cfg.Server.Request())
		uri, version, ident := d.uri, d.version, p.identifier
		conn.Go(callCtx, pullMethod, params, func(res json.RawMessage, err error) {
			cancel()
			send(&pullDone{inc: inc, uri: uri, version: version, identifier: ident, result: res, err: err})
		})
	}
}

// interFile reports whether a provider says diagnostics depend on other
// files.
func (a *serverActor) interFile() bool {
	for _, p := range a.providers() {
		if p.interFile {
			return true
		}
	}
	return false
}

func (a *serverActor) onPullDone(ctx actor.Context, m *pullDone) {
	ps := a.pulls[m.uri]
	if a.inc == nil || m.inc != a.inc.n || ps == nil || ps.version != m.version || ps.inflight == 0 {
		return
	}
	ps.inflight--
	if m.err != nil {
		a.cfg.Logger.Debug("pull diagnostics failed", "server", a.cfg.Server.ID, "uri", m.uri, "err", m.err)
	} else {
		a.readReport(ps, m.identifier, m.result)
	}
	if ps.inflight > 0 {
		return
	}
	a.publishPulled(ctx, m.uri, ps)
	if d := a.st.docs[m.uri]; ps.again && d != nil && d.open {
		ps.again = false
		a.pull(ctx, d)
	}
}

// readReport records a full or unchanged document diagnostic report.
func (a *serverActor) readReport(ps *pullState, ident string, raw json.RawMessage) {
	var r struct {
		Kind     string           `json:"kind"`
		ResultID string           `json:"resultId"`
		Items    []wireDiagnostic `json:"items"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		a.cfg.Logger.Warn("malformed pull diagnostics report", "server", a.cfg.Server.ID, "err", err)
		return
	}
	ps.resultIDs[ident] = r.ResultID
	if r.Kind == "unchanged" {
		return
	}
	items := make([]messages.Diagnostic, len(r.Items))
	for i := range r.Items {
		items[i] = r.Items[i].value()
	}
	ps.items[ident] = items
}

func (a *serverActor) publishPulled(ctx actor.Context, uri string, ps *pullState) {
	msg := a.pulledMessage(uri, ps)
	ch := ps.change
	ps.change = nil
	switch {
	case ch == nil:
		a.publish(ctx, msg)
	case uri == ch.uri:
		ch.held = msg
	default:
		a.publish(ctx, msg)
	}
	if ch != nil {
		if ch.left--; ch.left == 0 && ch.held != nil {
			a.publish(ctx, ch.held)
		}
	}
}

func (a *serverActor) pulledMessage(uri string, ps *pullState) *messages.PublishedDiagnostics {
	idents := make([]string, 0, len(ps.items))
	for id := range ps.items {
		idents = append(idents, id)
	}
	sort.Strings(idents)
	var all []messages.Diagnostic
	for _, id := range idents {
		all = append(all, ps.items[id]...)
	}
	return &messages.PublishedDiagnostics{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, URI: uri, Version: ps.version, HasVersion: true,
		Incarnation: a.inc.n, Pulled: true, Diagnostics: all,
	}
}

// onRefresh answers workspace/diagnostic/refresh: pull every open document.
func (a *serverActor) onRefresh(ctx actor.Context) {
	for _, d := range a.st.docs {
		if d.open {
			a.pull(ctx, d)
		}
	}
}

// publish sends diagnostics to the observers.
func (a *serverActor) publish(ctx actor.Context, m *messages.PublishedDiagnostics) {
	for _, o := range a.cfg.Observers {
		ctx.Send(o, m)
	}
}
