package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// syncTimeout bounds the wait for a server actor's reply to a document
// message (it replies at once; this only guards against a lost actor).
const syncTimeout = 30 * time.Second

// openDoc is a file open on its servers, with the sessions that opened it.
type openDoc struct {
	uri      string
	targets  []messages.Target
	defs     []*config.Server
	sessions map[string]bool
}

// onSync opens, changes, saves or closes a file on all its servers.
func (r *routerActor) onSync(ctx actor.Context, m *messages.SyncDocument) {
	sender := ctx.Sender()
	abs, err := InWorkspace(r.cfg.Workspace, m.Path)
	if err != nil {
		ctx.Respond(&messages.FileSynced{Path: m.Path, Err: err})
		return
	}
	doc := r.docs[abs]
	switch m.Action {
	case messages.SyncOpen, messages.SyncChange:
		if doc == nil {
			if doc, err = r.openDoc(m.Path); err != nil {
				ctx.Respond(&messages.FileSynced{Path: m.Path, Err: err})
				return
			}
			r.docs[abs] = doc
		}
		doc.sessions[m.Session] = true
		r.fanoutSync(ctx, sender, abs, doc, func(t messages.Target) any {
			return &messages.OpenDocument{URI: doc.uri, LanguageID: t.LanguageID, Text: m.Text}
		})
	case messages.SyncSave:
		if doc == nil {
			ctx.Respond(&messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
			return
		}
		r.fanoutSync(ctx, sender, abs, doc, func(messages.Target) any { return &messages.SaveDocument{URI: doc.uri} })
	case messages.SyncClose:
		r.closeDoc(ctx, sender, abs, doc, m.Session)
	default:
		ctx.Respond(&messages.FileSynced{Path: abs, Err: fmt.Errorf("agentlsp: unknown sync action %d", m.Action)})
	}
}

func (r *routerActor) openDoc(path string) (*openDoc, error) {
	rt, err := r.route(path)
	if err != nil {
		return nil, err
	}
	return &openDoc{uri: rt.uri, targets: rt.targets, defs: rt.defs, sessions: make(map[string]bool)}, nil
}

// closeDoc drops the session's reference; the last one closes the
// document on its servers.
func (r *routerActor) closeDoc(ctx actor.Context, sender *actor.PID, abs string, doc *openDoc, session string) {
	if doc == nil || !doc.sessions[session] {
		ctx.Respond(&messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
		return
	}
	delete(doc.sessions, session)
	if len(doc.sessions) > 0 {
		ctx.Respond(&messages.FileSynced{Path: abs, URI: doc.uri})
		return
	}
	delete(r.docs, abs)
	r.fanoutSync(ctx, sender, abs, doc, func(messages.Target) any { return &messages.CloseDocument{URI: doc.uri} })
}

// fanoutSync sends one document message per target and replies with all
// their versions once every server actor answered.
func (r *routerActor) fanoutSync(ctx actor.Context, sender *actor.PID, abs string, doc *openDoc, msg func(messages.Target) any) {
	reply := &messages.FileSynced{Path: abs, URI: doc.uri, Servers: make([]messages.ServerVersion, len(doc.targets))}
	left := len(doc.targets)
	for i, t := range doc.targets {
		e := r.server(ctx, t.ServerKey, doc.defs[i])
		e.sent++
		reply.Servers[i] = messages.ServerVersion{ServerKey: t.ServerKey, SentAt: time.Now()}
		f := ctx.RequestFuture(e.pid, msg(t), syncTimeout)
		ctx.ReenterAfter(f, func(res any, err error) {
			sv := &reply.Servers[i]
			if s, ok := res.(*messages.DocumentSynced); ok && err == nil {
				sv.Version, sv.Changed, sv.Err = s.Version, s.Changed, s.Err
			} else {
				sv.Err = fmt.Errorf("agentlsp: server actor %s did not answer: %v", t.ServerID, err)
			}
			if left--; left == 0 && sender != nil {
				ctx.Send(sender, reply)
			}
		})
	}
}
