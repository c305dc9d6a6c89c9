package server

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/messages"
)

// What stands for a touch. A diagnostics call touches the documents it
// names (a new version of the same text) so that the server describes
// each after every change sent before the call. Two servers need no such
// version:
//
//   - One that signals its diagnoses and publishes (gopls): when the last
//     change it was sent was a touch or an open of another document, that
//     touch or open stands for this one (messages.Barrier). The server
//     describes every open document as of it once its diagnosis of it ends;
//     a touch would only have it diagnose the same workspace again. (A
//     check of many files opens them all, then asks each: once the server
//     has signalled a diagnosis, none is touched.)
//   - One that is pulled (pyright, tsserver): the document is pulled again
//     (repull, pull.go), and only a pull asked from then on describes it
//     (DocumentSynced.PullView).

// insteadOfTouch answers a TouchDocument of the open document uri without
// a new version when something stands for the touch; nil when the
// document must be touched.
func (a *serverActor) insteadOfTouch(ctx actor.Context, uri string) *messages.DocumentSynced {
	if b, ok := a.barrier(uri); ok {
		out := a.synced(docs.Result{Doc: a.st.docs.Get(uri)})
		out.Barrier = b
		return out
	}
	if view, ok := a.repull(ctx, uri); ok {
		out := a.synced(docs.Result{Doc: a.st.docs.Get(uri)})
		out.PullView = view
		return out
	}
	return nil
}

// touchMark is the last touch or open sent to the server in this
// incarnation (start forgets it): the document, its version, the store's
// Seq right after it, and when it was sent.
type touchMark struct {
	uri     string
	version int32
	seq     uint64
	at      time.Time
}

// noteTouch records a touch or an open of d just sent to the running
// server.
func (a *serverActor) noteTouch(d *docs.Document) {
	a.lastTouch = touchMark{uri: d.URI, version: d.Version, seq: a.st.docs.Seq(), at: time.Now()}
}

// barrier returns the touch that stands for a touch of the open document
// uri, if one does: the server runs, has signalled a diagnosis in this
// incarnation, publishes rather than being pulled (a pull answered before
// the touch would count for the document's version), and the last thing
// it was sent is a touch or an open of another document.
func (a *serverActor) barrier(uri string) (*messages.Barrier, bool) {
	t := a.lastTouch
	switch {
	case !a.signals || !a.running() || a.offersPull(),
		t.uri == "" || t.uri == uri || t.seq != a.st.docs.Seq(),
		!a.st.docs.IsOpen(uri):
		return nil, false
	}
	return &messages.Barrier{URI: t.uri, Version: t.version, SentAt: t.at}, true
}
