package router

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// syncTimeout bounds the wait for a server actor's reply to a document
// message (it replies at once; this only guards against a lost actor).
const syncTimeout = 30 * time.Second

// onSync opens, changes, saves or closes a file on all its servers.
func (r *routerActor) onSync(ctx actor.Context, sender *actor.PID, m *messages.SyncDocument) {
	abs, err := paths.InWorkspace(r.cfg.Workspace, m.Path)
	if err != nil {
		r.reply(ctx, sender, &messages.FileSynced{Path: m.Path, Err: err})
		return
	}
	doc := r.docs[abs]
	switch m.Action {
	case messages.SyncChange:
		r.change(ctx, sender, m, abs, doc)
	case messages.SyncCurrent:
		r.syncCurrent(ctx, sender, m, abs, doc)
	case messages.SyncSave:
		if doc == nil {
			r.reply(ctx, sender, &messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
			return
		}
		r.fanoutSync(ctx, sender, doc, func(messages.Target) any { return &messages.SaveDocument{URI: doc.uri} })
	case messages.SyncClose:
		r.closeDoc(ctx, sender, abs, doc, m.Session)
	default:
		r.reply(ctx, sender, &messages.FileSynced{Path: abs, Err: fmt.Errorf("agentlsp: unknown sync action %d", m.Action)})
	}
}

// reply answers a requester that may be gone (nil).
func (r *routerActor) reply(ctx actor.Context, to *actor.PID, msg any) {
	if to != nil {
		ctx.Send(to, msg)
	}
}

// change gives the file's servers an agent's text (not on disk).
func (r *routerActor) change(ctx actor.Context, sender *actor.PID, m *messages.SyncDocument, abs string, doc *document) {
	if doc == nil {
		var err error
		if doc, err = r.newDocument(m.Path); err != nil {
			r.reply(ctx, sender, &messages.FileSynced{Path: m.Path, Err: err})
			return
		}
		r.docs[abs] = doc
	}
	doc.sessions[m.Session] = true
	doc.setText(m.Text, paths.StampOf(abs), false)
	r.sendText(ctx, sender, doc, m.Fresh)
}

// syncCurrent makes sure the file's servers have its current text: the
// text they have when the disk has not changed since it was set, else the
// disk's (read in a reaper goroutine). With Fresh, servers that got
// nothing new are asked to diagnose the document again if anything changed
// on them since (TouchDocument).
func (r *routerActor) syncCurrent(ctx actor.Context, sender *actor.PID, m *messages.SyncDocument, abs string, doc *document) {
	if doc == nil {
		var err error
		if doc, err = r.newDocument(m.Path); err != nil {
			r.reply(ctx, sender, &messages.FileSynced{Path: m.Path, Err: err})
			return
		}
		r.docs[abs] = doc
	}
	doc.sessions[m.Session] = true
	if doc.current(paths.StampOf(abs)) {
		r.sendText(ctx, sender, doc, m.Fresh)
		return
	}
	gen := doc.gen
	r.readDisk(ctx, abs, m.Path, func(read *diskRead) {
		switch {
		case r.docs[abs] != doc:
			r.reply(ctx, sender, &messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
		case read.err != nil:
			r.reply(ctx, sender, &messages.FileSynced{Path: abs, URI: doc.uri, Err: read.err})
		case doc.gen != gen:
			r.sendText(ctx, sender, doc, m.Fresh) // changed meanwhile: that text is newer
		default:
			doc.setText(read.text, read.stamp, true)
			r.sendText(ctx, sender, doc, m.Fresh)
		}
	})
}

// sendText sends the document's text to every server (a no-op for those
// that have it) and replies with their versions; with fresh, servers that
// had it already are touched. done, when given, runs after the reply.
func (r *routerActor) sendText(ctx actor.Context, sender *actor.PID, doc *document, fresh bool, done ...func()) {
	text := doc.text
	r.fanoutSync(ctx, sender, doc, func(t messages.Target) any {
		return &messages.OpenDocument{URI: doc.uri, LanguageID: t.LanguageID, Text: text}
	}, func(reply *messages.FileSynced) {
		reply.Text = text
		if fresh {
			r.touchUnchanged(ctx, sender, doc, reply)
		} else {
			r.reply(ctx, sender, reply)
		}
		for _, f := range done {
			f()
		}
	})
}

// touchUnchanged asks the servers that got nothing new to diagnose the
// document again if anything changed on them since its version, and then
// replies with every server's version.
func (r *routerActor) touchUnchanged(ctx actor.Context, sender *actor.PID, doc *document, reply *messages.FileSynced) {
	var idx []int
	for i, sv := range reply.Servers {
		if !sv.Changed && sv.Err == nil {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		r.reply(ctx, sender, reply)
		return
	}
	left := len(idx)
	for _, i := range idx {
		e := r.server(ctx, reply.Servers[i].ServerKey, doc.defs[i])
		e.sent++
		reply.Servers[i].SentAt = time.Now()
		f := ctx.RequestFuture(e.pid, &messages.TouchDocument{URI: doc.uri}, syncTimeout)
		ctx.ReenterAfter(f, func(res any, err error) {
			if s, ok := res.(*messages.DocumentSynced); ok && err == nil && s.Err == nil {
				reply.Servers[i].Version, reply.Servers[i].Changed = s.Version, s.Changed
			}
			if left--; left == 0 {
				doc.versions = reply.Servers
				r.reply(ctx, sender, reply)
			}
		})
	}
}

// closeDoc drops the session's reference; the last one closes the
// document on its servers.
func (r *routerActor) closeDoc(ctx actor.Context, sender *actor.PID, abs string, doc *document, session string) {
	if doc == nil || !doc.sessions[session] {
		r.reply(ctx, sender, &messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
		return
	}
	delete(doc.sessions, session)
	if len(doc.sessions) > 0 {
		r.reply(ctx, sender, &messages.FileSynced{Path: abs, URI: doc.uri})
		return
	}
	r.closeOnServers(ctx, sender, doc, nil)
}

// closeOnServers closes a document on every server and forgets it; done
// (when not nil) runs once every server answered.
func (r *routerActor) closeOnServers(ctx actor.Context, sender *actor.PID, doc *document, done func()) {
	delete(r.docs, doc.path)
	r.fanoutSync(ctx, sender, doc, func(messages.Target) any { return &messages.CloseDocument{URI: doc.uri} },
		func(reply *messages.FileSynced) {
			r.reply(ctx, sender, reply)
			if done != nil {
				done()
			}
		})
}

// onEndSession drops every reference the session holds.
func (r *routerActor) onEndSession(ctx actor.Context, sender *actor.PID, m *messages.EndSession) {
	closed := 0
	for _, doc := range r.docs {
		if !doc.sessions[m.Session] {
			continue
		}
		delete(doc.sessions, m.Session)
		closed++
		if len(doc.sessions) == 0 {
			r.closeOnServers(ctx, nil, doc, nil)
		}
	}
	r.reply(ctx, sender, &messages.SessionEnded{Session: m.Session, Released: closed})
}

// fanoutSync sends one document message per target and, once every server
// actor answered, calls done with all their versions (default: reply to
// sender).
func (r *routerActor) fanoutSync(ctx actor.Context, sender *actor.PID, doc *document, msg func(messages.Target) any, done ...func(*messages.FileSynced)) {
	reply := &messages.FileSynced{Path: doc.path, URI: doc.uri, Servers: make([]messages.ServerVersion, len(doc.targets))}
	finish := func(reply *messages.FileSynced) { r.reply(ctx, sender, reply) }
	if len(done) > 0 {
		finish = done[0]
	}
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
			if left--; left == 0 {
				doc.versions = reply.Servers
				finish(reply)
			}
		})
	}
}
