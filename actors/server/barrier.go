package server

import (
	"time"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/messages"
)

// The touch barrier (messages.Barrier). A diagnostics call touches the
// documents it names so that the server describes each after every change
// sent before the call. When the last change sent to a server that
// signals its diagnoses was a touch of another document, that touch stands
// for this one: the server describes every open document as of that touch
// once its diagnosis of it ends, and a second touch would only have it
// diagnose the same workspace again.

// touchMark is the last touch sent to the server: the document, its
// version, the store's Seq right after it, the incarnation it went to,
// and when it was sent.
type touchMark struct {
	uri     string
	version int32
	seq     uint64
	gen     int
	at      time.Time
}

// noteTouch records a touch of d just sent to the running server.
func (a *serverActor) noteTouch(d *docs.Document) {
	a.lastTouch = touchMark{uri: d.URI, version: d.Version, seq: a.st.docs.Seq(), gen: a.st.gen, at: time.Now()}
}

// barrier returns the touch that stands for a touch of the open document
// uri, if one does: the server runs, has signalled a diagnosis in this
// incarnation, publishes rather than being pulled (a pull answered before
// the touch would count for the document's version), and the last thing
// it was sent is a touch of another document.
func (a *serverActor) barrier(uri string) (*messages.Barrier, bool) {
	t := a.lastTouch
	switch {
	case !a.signals || !a.running() || a.offersPull(),
		t.uri == "" || t.uri == uri || t.gen != a.st.gen || t.seq != a.st.docs.Seq(),
		!a.st.docs.IsOpen(uri):
		return nil, false
	}
	return &messages.Barrier{URI: t.uri, Version: t.version, SentAt: t.at}, true
}
