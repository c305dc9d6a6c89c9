package server

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/messages"
)

// Document synchronisation. The document store keeps every document's
// latest text and version whatever the server's state, so nothing is lost
// while it starts, restarts or is broken: notifications are sent only while
// it runs, and a (re)started server gets every open document re-opened.

// onDocument applies one document message and answers with the version the
// server now has.
func (a *serverActor) onDocument(ctx actor.Context, msg any) *messages.DocumentSynced {
	var res docs.Result
	var err error
	var uri string
	edited := false // an open's text is not the disk's
	switch m := msg.(type) {
	case *messages.OpenDocument:
		uri, edited = m.URI, m.Edited
		a.retryIfBroken(ctx)
		res = a.st.docs.Open(m.URI, m.LanguageID, m.Text)
	case *messages.ChangeDocument:
		uri = m.URI
		a.retryIfBroken(ctx)
		res, err = a.st.docs.Change(m.URI, m.Text)
	case *messages.TouchDocument:
		uri = m.URI
		a.retryIfBroken(ctx)
		if out := a.insteadOfTouch(ctx, m.URI); out != nil {
			return out
		}
		res, err = a.st.docs.Touch(m.URI)
	case *messages.SaveDocument:
		uri = m.URI
		res.Doc = a.st.docs.Get(m.URI)
		if !a.st.docs.IsOpen(m.URI) {
			err = docs.ErrNotOpen
		} else if a.checksOnSave() {
			a.checkDue(m.URI) // the save goes out as the check's
		} else if a.running() && a.takesSave() {
			a.notify(ctx, "textDocument/didSave", docs.DidSave(m.URI))
		}
	case *messages.CloseDocument:
		uri = m.URI
		res.Doc, err = a.st.docs.Close(m.URI)
		if err == nil {
			res.Changed = true
			a.publishPulled(ctx, a.pulls.Forget(m.URI))
			if a.running() && a.caps.sync.OpenClose {
				a.notify(ctx, "textDocument/didClose", docs.DidClose(m.URI))
				a.tellSent(ctx, res.Doc, true, false)
			}
			if m.Left {
				a.tellLeft(ctx, res.Doc)
			}
		}
	}
	if errors.Is(err, docs.ErrNotOpen) {
		return &messages.DocumentSynced{URI: uri, Err: messages.ErrNotOpen}
	}
	a.tellServer(ctx, res, edited)
	return a.synced(res)
}

// tellServer tells a running server what the store changed: didOpen for a new
// document, didChange for a changed one, then pulls. edited says an
// opened document's text is not the disk's (an agent's edit).
func (a *serverActor) tellServer(ctx actor.Context, r docs.Result, edited bool) {
	if !r.Changed || r.Doc == nil || !r.Doc.Open || !a.running() {
		return
	}
	a.tellSent(ctx, r.Doc, false, r.Touched)
	if r.Touched || r.Opened {
		a.noteTouch(r.Doc)
	}
	switch {
	case r.Opened:
		changed := a.openedChanged(r.Doc.URI)
		if !edited && a.checkFound(r.Doc.URI) {
			// What the last check found in the file was pushed with no
			// version, or an older one, and describes the server's view
			// before this open: the next check's pushes carry it.
			a.checkDue(r.Doc.URI)
		}
		a.sendOpen(ctx, r.Doc, changed, edited)
	case a.caps.sync.Kind != 0:
		if !r.Touched && !edited {
			a.checkDue(r.Doc.URI)
		}
		change := docs.DidChange(r.Doc, r.Old, a.caps.sync)
		if r.Touched && a.caps.serverName == "clangd" {
			// A touch: a new diagnosis of the same text. clangd skips
			// unchanged text and publishes nothing for the new version,
			// unless told to rebuild (its own extension of didChange).
			change.ForceRebuild = true
		}
		a.notify(ctx, "textDocument/didChange", change)
		a.pullAfterChange(ctx, r.Doc)
	}
}

// reopenAll sends didOpen for every open document to a (re)started server,
// which reads the other files from disk as they are now. The observers
// hear of each: one opened while the server started was not sent then.
func (a *serverActor) reopenAll(ctx actor.Context) {
	a.changedOnDisk = nil
	for _, d := range a.st.docs.OpenDocuments() {
		a.tellSent(ctx, d, false, false)
		a.sendOpen(ctx, d, false, false)
	}
}

// sendOpen sends didOpen and pulls d. changed says d changed on disk
// since the server had it open, edited that its text is an agent's edit,
// not the disk's: then the other open documents are re-pulled too, and
// d's result held until theirs are in, as for a change. An edited
// document also goes again as a new version of the same text: pyright
// re-checks the documents that import one on a change, not on an open
// with text other than the disk's.
func (a *serverActor) sendOpen(ctx actor.Context, d *docs.Document, changed, edited bool) {
	if !a.running() || !a.caps.sync.OpenClose {
		return
	}
	a.notify(ctx, "textDocument/didOpen", docs.DidOpen(d))
	switch {
	case edited && a.caps.sync.Kind != 0 && pulls.InterFile(a.providers()):
		if r, err := a.st.docs.Renew(d.URI); err == nil {
			a.tellSent(ctx, d, false, true)
			a.notify(ctx, "textDocument/didChange", docs.DidChange(r.Doc, r.Old, a.caps.sync))
		}
		a.pullAfterChange(ctx, d)
	case changed || edited:
		a.pullAfterChange(ctx, d)
	default:
		a.pullDoc(ctx, d)
	}
}

// notify queues a notification. One that cannot be queued (the outgoing
// queue is full: the server stopped reading) ends this incarnation rather
// than leave the server's view of a document out of step for good: the
// restart re-opens every document with its latest text.
func (a *serverActor) notify(ctx actor.Context, method string, params any) {
	c := a.inc.connection()
	if c == nil {
		return
	}
	if err := c.Notify(method, params); err != nil && a.running() {
		a.cfg.Logger.Warn("cannot send to the language server; restarting it", "server", a.cfg.Server.ID,
			"root", a.cfg.Root, "method", method, "err", err)
		a.inc.kill() // the exit arrives as incExited: a crash, restarted by the policy
	}
}

// synced is the reply to a document message. A broken server still keeps
// the document, but the reply says the server will not see it now.
func (a *serverActor) synced(r docs.Result) *messages.DocumentSynced {
	d := r.Doc
	out := &messages.DocumentSynced{Changed: r.Changed}
	if d != nil {
		out.URI, out.Version = d.URI, d.Version
	}
	if a.broken {
		out.Err = a.lastErr
	}
	return out
}

// retryIfBroken gives a broken server a new try when the policy allows it:
// any use of the server (a request, a document change) counts.
func (a *serverActor) retryIfBroken(ctx actor.Context) {
	if a.broken {
		a.retryBroken(ctx)
	}
}

// tellLeft tells the observers that d moved to other servers, whether or
// not this one runs: what it said of d no longer counts.
func (a *serverActor) tellLeft(ctx actor.Context, d *docs.Document) {
	a.tellObservers(ctx, &messages.DocumentSent{ServerID: a.cfg.Server.ID, Root: a.cfg.Root, URI: d.URI,
		Version: d.Version, View: d.SentSeq, Closed: true, Left: true})
}

// tellSent tells the observers (the diagnostics actor) the version of d
// the server now has, or that d was closed on it; touch says the version
// has the text of the one before it.
func (a *serverActor) tellSent(ctx actor.Context, d *docs.Document, closed, touch bool) {
	a.tellObservers(ctx, &messages.DocumentSent{ServerID: a.cfg.Server.ID, Root: a.cfg.Root, URI: d.URI,
		Version: d.Version, View: d.SentSeq, Closed: closed, OpenOnly: a.cfg.Server.OpenImporters > 0, Touch: touch,
		Pulls: a.offersPull()})
}
