package daemon

import (
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// resync brings a daemon the link just attached to up to date with the
// client, in an order that keeps each edit's baseline before its change:
// edits announced but not yet awaited, edits awaited (replayed), the
// documents the sessions hold (but those a waiting call sets), the
// subscriptions, the messages held while detached, and the calls still
// waiting (an Edit among them, whole), in the order they came.
func (l *link) resync(ctx actor.Context) {
	ns := l.att.ns
	for s := range l.sessions {
		ctx.Send(l.att.front, &messages.ClientSession{Client: ns.client, Session: s})
	}
	for _, e := range l.sortedEdits() {
		if !e.awaiting && e.gen != l.gen {
			ctx.Send(l.att.diag, ns.out(e.started))
			e.gen = l.gen
		}
	}
	covered := map[docKey]bool{}
	for _, c := range l.sorted() {
		if aw, ok := c.msg.(*messages.AwaitEdit); ok && c.gen != l.gen && l.callerAlive(c) {
			covered[l.replayEdit(ctx, c, aw)] = true
		}
		if k, ok := l.docOf(c.msg); ok && c.gen != l.gen {
			covered[k] = true
		}
	}
	for _, k := range l.sortedDocs() {
		if !covered[k] {
			ctx.Send(l.att.router, ns.out(l.docs[k].replay(k.path)))
		}
	}
	for session, r := range l.subs {
		r.ns.Store(ns)
		ctx.RequestWithCustomSender(l.att.diag, ns.out(&messages.Subscribe{Session: session}), r.pid)
	}
	for _, it := range l.outbox {
		ctx.Send(l.target(it.toDiag), ns.out(it.msg))
	}
	l.outbox = nil
	for _, c := range l.sorted() {
		switch {
		case c.gen == l.gen:
		case !l.callerAlive(c):
			l.drop(c.seq)
		default:
			l.send(ctx, c)
		}
	}
}

// docOf is the document a sync or an Edit sets.
func (l *link) docOf(msg any) (docKey, bool) {
	var session, path string
	switch m := msg.(type) {
	case *messages.SyncDocument:
		session, path = m.Session, m.Path
	case *messages.Edit:
		session, path = m.Session, m.Path
	default:
		return docKey{}, false
	}
	abs, err := paths.InWorkspace(l.cfg.workspace, path)
	return docKey{session: session, path: abs}, err == nil
}

// callerAlive reports whether the caller of c still waits (its process is
// registered: an abandoned ask removed its own).
func (l *link) callerAlive(c *call) bool {
	if c.caller == nil {
		return true
	}
	_, ok := l.sys.ProcessRegistry.GetLocal(c.caller.Id)
	return ok
}

// replayEdit replays an edit whose diagnostics the lost daemon owed: the
// EditStarted, the document's latest state (the edit's text, or the disk),
// then the AwaitEdit with the versions the new daemon's servers got. It
// returns the document it synced.
func (l *link) replayEdit(ctx actor.Context, c *call, aw *messages.AwaitEdit) docKey {
	ns := l.att.ns
	e := l.edits[aw.EditID]
	started := &messages.EditStarted{EditID: aw.EditID, Session: aw.Session, URI: aw.URI}
	if e != nil {
		started = e.started
		e.gen = l.gen
	}
	ctx.Send(l.att.diag, ns.out(started))
	path := paths.FromURI(aw.URI)
	key := docKey{session: aw.Session, path: path}
	sync := &messages.SyncDocument{Session: aw.Session, Path: path, Action: messages.SyncCurrent}
	if d, ok := l.docs[key]; ok {
		sync = d.replay(path)
	} else if e != nil && e.sync != nil {
		sync = e.sync
	}
	cp := *sync
	cp.Fresh = true
	c.gen = l.gen // sent by the continuation, not by resync
	internal := l.newCall(ctx, &cp, false, nil, func(ctx actor.Context, reply any) {
		l.replayed(ctx, c.seq, aw, reply)
	})
	l.send(ctx, internal)
	return key
}

// replayed sends a replayed edit's AwaitEdit once its document is synced
// on the new daemon; a failed sync answers the caller with the reason.
func (l *link) replayed(ctx actor.Context, seq uint64, aw *messages.AwaitEdit, reply any) {
	c, ok := l.calls[seq]
	if !ok {
		return
	}
	fs, ok := reply.(*messages.FileSynced)
	if !ok || fs.Err != nil || l.att == nil {
		detail := "the daemon restarted and the edit could not be replayed"
		if ok && fs.Err != nil {
			detail += ": " + fs.Err.Error()
		}
		ctx.Send(c.caller, &messages.EditResult{EditID: aw.EditID, Status: messages.StatusTimeout,
			Files: []messages.FileReport{{URI: aw.URI, Status: messages.StatusTimeout, Detail: detail}}})
		l.forget(seq)
		return
	}
	cp := *aw
	cp.Servers = fs.Servers
	c.msg = &cp
	l.send(ctx, c)
}

// replay is the message that gives a new daemon this document state: the
// edit's text, unless the disk changed since (then the disk's).
func (d *docState) replay(abs string) *messages.SyncDocument {
	cp := *d.sync
	if cp.Action == messages.SyncChange && !paths.StampOf(abs).SameFile(d.stamp) {
		cp.Action, cp.Text = messages.SyncCurrent, ""
	}
	cp.Fresh = false
	return &cp
}

// sortedEdits returns the edits in the order they were announced.
func (l *link) sortedEdits() []*edit {
	out := make([]*edit, 0, len(l.edits))
	for _, e := range l.edits {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// sortedDocs returns the documents in the order the sessions first used
// them, so the next daemon starts their servers in the same order.
func (l *link) sortedDocs() []docKey {
	out := make([]docKey, 0, len(l.docs))
	for k := range l.docs {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return l.docs[out[i]].seq < l.docs[out[j]].seq })
	return out
}
