package actors

import (
	"github.com/asynkron/protoactor-go/actor"
	"go.lsp.dev/protocol"

	"github.com/agentlsp/agentlsp/messages"
)

// Document synchronisation. The actor keeps every document's latest text
// and version whatever the server's state, so nothing is lost while it
// starts, restarts or is broken: notifications are sent only while it
// runs, and a (re)started server gets every open document re-opened.
// Versions are strictly increasing per document for the actor's lifetime,
// across all agents and across close and re-open.

func (a *serverActor) openDocument(ctx actor.Context, m *messages.OpenDocument) *messages.DocumentSynced {
	d, ok := a.st.docs[m.URI]
	if ok && d.open {
		if m.LanguageID != "" {
			d.languageID = m.LanguageID
		}
		return a.changeDocument(ctx, &messages.ChangeDocument{URI: m.URI, Text: m.Text})
	}
	if !ok {
		d = &document{uri: m.URI}
		a.st.docs[m.URI] = d
	}
	d.languageID, d.text, d.open = m.LanguageID, m.Text, true
	d.version++
	a.sendOpen(ctx, d)
	return a.synced(d, true)
}

func (a *serverActor) changeDocument(ctx actor.Context, m *messages.ChangeDocument) *messages.DocumentSynced {
	d, ok := a.st.docs[m.URI]
	if !ok || !d.open {
		return &messages.DocumentSynced{URI: m.URI, Err: messages.ErrNotOpen}
	}
	if d.text == m.Text {
		return a.synced(d, false)
	}
	old := d.text
	d.text = m.Text
	d.version++
	if a.running() && a.caps.syncKind != 0 {
		a.notify("textDocument/didChange", map[string]any{
			"textDocument": protocol.VersionedTextDocumentIdentifier{
				TextDocumentIdentifier: textDoc(d.uri), Version: d.version,
			},
			"contentChanges": []any{a.changeEvent(old, d.text)},
		})
		a.pullAfterChange(ctx, d)
	}
	return a.synced(d, true)
}

// changeEvent is an incremental change when the server asked for
// incremental sync, the full text otherwise. (protocol's
// TextDocumentContentChangeEvent cannot leave the range out, so a full
// change is written as a map.)
func (a *serverActor) changeEvent(old, new string) any {
	if a.caps.syncKind != 2 {
		return map[string]any{"text": new}
	}
	rng, text := contentChange(old, new, a.caps.encoding)
	return protocol.TextDocumentContentChangeEvent{
		Range: protocol.Range{
			Start: protocol.Position{Line: rng.Start.Line, Character: rng.Start.Character},
			End:   protocol.Position{Line: rng.End.Line, Character: rng.End.Character},
		},
		Text: text,
	}
}

func textDoc(uri string) protocol.TextDocumentIdentifier {
	return protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(uri)}
}

func (a *serverActor) saveDocument(m *messages.SaveDocument) *messages.DocumentSynced {
	d, ok := a.st.docs[m.URI]
	if !ok || !d.open {
		return &messages.DocumentSynced{URI: m.URI, Err: messages.ErrNotOpen}
	}
	if a.running() && a.caps.save {
		a.notify("textDocument/didSave", protocol.DidSaveTextDocumentParams{TextDocument: textDoc(d.uri)})
	}
	return a.synced(d, false)
}

func (a *serverActor) closeDocument(m *messages.CloseDocument) *messages.DocumentSynced {
	d, ok := a.st.docs[m.URI]
	if !ok || !d.open {
		return &messages.DocumentSynced{URI: m.URI, Err: messages.ErrNotOpen}
	}
	d.open = false
	d.text = "" // the version is kept so a re-open continues the sequence
	delete(a.pulls, d.uri)
	if a.running() && a.caps.openClose {
		a.notify("textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: textDoc(d.uri)})
	}
	return a.synced(d, true)
}

// reopenAll sends didOpen for every open document to a (re)started server.
func (a *serverActor) reopenAll(ctx actor.Context) {
	for _, d := range a.st.docs {
		if d.open {
			a.sendOpen(ctx, d)
		}
	}
}

func (a *serverActor) sendOpen(ctx actor.Context, d *document) {
	if !a.running() || !a.caps.openClose {
		return
	}
	defer a.pull(ctx, d)
	a.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{
			URI: protocol.DocumentURI(d.uri), LanguageID: protocol.LanguageIdentifier(d.languageID),
			Version: d.version, Text: d.text,
		},
	})
}

// notify queues a notification; a failure means the connection is ending,
// which the incarnation reports on its own.
func (a *serverActor) notify(method string, params any) {
	if c := a.inc.connection(); c != nil {
		_ = c.Notify(method, params)
	}
}

func (a *serverActor) running() bool { return a.state == messages.StateRunning && a.inc != nil }

// synced is the reply to a document message. A broken server still keeps
// the document, but the reply says the server will not see it now.
func (a *serverActor) synced(d *document, changed bool) *messages.DocumentSynced {
	r := &messages.DocumentSynced{URI: d.uri, Version: d.version, Changed: changed}
	if a.broken {
		r.Err = a.lastErr
	}
	return r
}
