package router

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/textpos"
)

// onDocumentRequest carries out a FileRequest with Session in one step:
// the document is opened for the session and brought up to date with the
// disk, the position checked against its text and put in the parameters
// with the document, and the request sent right behind the text (unless
// every server actor took that text already). Each
// server actor takes the text before the request (one mailbox, in order),
// so the router does not wait for the sync; a server that cannot take the
// text fails the request too.
func (r *routerActor) onDocumentRequest(ctx actor.Context, sender *actor.PID, m *messages.FileRequest) {
	fail := func(err error) { r.reply(ctx, sender, &messages.FileResponse{ID: m.ID, Err: err}) }
	abs, doc, err := r.open(ctx, m.Path, m.Session, false)
	if err != nil {
		fail(err)
		return
	}
	r.current(ctx, abs, m.Path, doc, func() {
		params, err := documentParams(m, doc.uri, doc.indexed())
		if err != nil {
			fail(err)
			return
		}
		if !r.textSent(doc) {
			r.sendText(ctx, doc, false, func(*messages.FileSynced) {})
		}
		keys := make([]messages.ServerKey, len(doc.targets))
		for i, t := range doc.targets {
			keys[i] = t.ServerKey
		}
		r.fanoutRequest(ctx, sender, &messages.FileResponse{ID: m.ID, URI: doc.uri}, m.Method, params, m.Timeout, keys, doc.defs)
	}, fail)
}

// documentParams completes a document request's parameters: the document,
// the position (checked against its text), then the caller's own members.
func documentParams(m *messages.FileRequest, uri string, text *textpos.Lines) (json.RawMessage, error) {
	rest := bytes.TrimSpace(m.Params)
	if len(rest) > 0 && !bytes.Equal(rest, []byte("null")) {
		if rest[0] != '{' || rest[len(rest)-1] != '}' {
			return nil, fmt.Errorf("agentlsp: the parameters of a request about %s must be a JSON object", m.Path)
		}
		rest = bytes.TrimSpace(rest[1 : len(rest)-1])
	} else {
		rest = nil
	}
	quoted, _ := json.Marshal(uri)
	out := make([]byte, 0, 64+len(quoted)+len(rest))
	out = append(append(append(out, `{"textDocument":{"uri":`...), quoted...), '}')
	if at := m.At; at != nil {
		if err := text.Check(int(at.Line), int(at.Character), textpos.UTF16); err != nil {
			return nil, fmt.Errorf("agentlsp: %s: %w", m.Path, err)
		}
		out = append(out, `,"position":{"line":`...)
		out = strconv.AppendUint(out, uint64(at.Line), 10)
		out = append(out, `,"character":`...)
		out = strconv.AppendUint(out, uint64(at.Character), 10)
		out = append(out, '}')
	}
	if len(rest) > 0 {
		out = append(append(out, ','), rest...)
	}
	return append(out, '}'), nil
}
