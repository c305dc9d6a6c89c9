package daemon

import (
	"reflect"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon/codec"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// carried reports whether msg can go to the daemon: a pointer to a
// message of package messages, not nil. Anything else is refused here:
// the codec could not write it, and its caller waited for a reply that
// never came (and a nil *messages.Edit would have panicked the daemon's
// router).
func carried(msg any) bool {
	if lifecycle.NilMessage(msg) || reflect.TypeOf(msg).Kind() != reflect.Pointer {
		return false
	}
	_, err := codec.TypeName(msg)
	return err == nil
}

// refuse answers a message the link cannot carry, as the actor it was
// meant for would.
func (l *link) refuse(ctx actor.Context, msg any, toDiag bool) {
	if _, refused := msg.(*messages.Refused); ctx.Sender() == nil || refused {
		return
	}
	name := "router"
	if toDiag {
		name = "diagnostics actor"
	}
	ctx.Send(ctx.Sender(), lifecycle.Refusal(msg, name))
}

// route forwards a message of the client's runtime to the daemon's
// router (or, toDiag, diagnostics actor), remembering what a replay needs.
func (l *link) route(ctx actor.Context, msg any, toDiag bool) {
	sender := ctx.Sender()
	if !carried(msg) {
		l.refuse(ctx, msg, toDiag)
		return
	}
	l.track(ctx, msg)
	switch m := msg.(type) {
	case *messages.Cancel, *messages.CancelEdit:
		l.cancel(ctx, m, sender)
		return
	case *messages.Subscribe:
		l.subscribe(ctx, m, sender)
		return
	case *messages.Unsubscribe:
		if r, ok := l.subs[m.Session]; ok {
			l.sys.ProcessRegistry.Remove(r.pid)
			delete(l.subs, m.Session)
		}
	}
	if sender == nil {
		l.post(ctx, msg, toDiag)
		return
	}
	if len(l.calls) >= maxCalls {
		l.cfg.log.Warn("daemon: too many calls waiting for the daemon; refusing one", "type", reflect.TypeOf(msg).String())
		ctx.Send(sender, &actor.DeadLetterResponse{Target: ctx.Self()})
		return
	}
	c := l.newCall(ctx, msg, toDiag, sender, nil)
	if l.att != nil {
		l.send(ctx, c)
	}
}

// cancel forwards a caller's Cancel or CancelEdit as the reply process of
// the call it cancels (the daemon's router keys callers' ids by sender),
// and drops the call: its caller has gone, and a cancelled edit's wait is
// never answered. A cancel of nothing the link holds is dropped.
func (l *link) cancel(ctx actor.Context, msg any, sender *actor.PID) {
	for _, c := range l.calls {
		if c.caller == nil || !c.caller.Equal(sender) || !cancels(msg, c.msg) {
			continue
		}
		if l.att != nil && c.gen == l.gen {
			ctx.RequestWithCustomSender(l.target(c.toDiag), l.att.ns.out(msg), c.pid)
		}
		l.drop(c.seq)
		return
	}
}

// cancels reports whether cancel (Cancel or CancelEdit) names the call msg.
func cancels(cancel, msg any) bool {
	switch c := cancel.(type) {
	case *messages.Cancel:
		switch m := msg.(type) {
		case *messages.FileRequest:
			return m.ID == c.ID
		case *messages.WorkspaceRequest:
			return m.ID == c.ID
		}
	case *messages.CancelEdit:
		m, ok := msg.(*messages.Edit)
		return ok && m.ID == c.ID
	}
	return false
}

// post sends a message without reply, or holds it while detached.
func (l *link) post(ctx actor.Context, msg any, toDiag bool) {
	if l.att != nil {
		ctx.Send(l.target(toDiag), l.att.ns.out(msg))
		return
	}
	if _, ok := msg.(*messages.EditStarted); ok {
		return // the edit record sends it on attaching
	}
	if len(l.outbox) >= maxOutbox {
		l.cfg.log.Warn("daemon: detached too long; dropping the oldest held message")
		l.outbox = l.outbox[1:]
	}
	l.outbox = append(l.outbox, outItem{msg: msg, toDiag: toDiag})
}

// target is the daemon's router or diagnostics actor.
func (l *link) target(toDiag bool) *actor.PID {
	if toDiag {
		return l.att.diag
	}
	return l.att.router
}

// newCall registers a reply process for a call; caller nil makes it one
// of the link's own calls, answered to then.
func (l *link) newCall(ctx actor.Context, msg any, toDiag bool, caller *actor.PID, then func(actor.Context, any)) *call {
	l.seq++
	reg := l.sys.ProcessRegistry
	proc := &replyProc{sys: l.sys, link: ctx.Self(), seq: l.seq, caller: caller}
	pid, _ := reg.Add(proc, "agentlsp-link-reply"+reg.NextId())
	c := &call{seq: l.seq, toDiag: toDiag, msg: msg, caller: caller, proc: proc, pid: pid, then: then}
	l.calls[c.seq] = c
	return c
}

// send sends a call to the attached daemon.
func (l *link) send(ctx actor.Context, c *call) {
	c.proc.ns.Store(l.att.ns)
	c.gen = l.gen
	ctx.RequestWithCustomSender(l.target(c.toDiag), l.att.ns.out(c.msg), c.pid)
}

// forget drops an answered call, and the edit an answered AwaitEdit ends.
func (l *link) forget(seq uint64) {
	if c, ok := l.calls[seq]; ok {
		if aw, ok := c.msg.(*messages.AwaitEdit); ok {
			delete(l.edits, aw.EditID)
		}
		l.drop(seq)
	}
}

// drop removes a call and its reply process.
func (l *link) drop(seq uint64) {
	if c, ok := l.calls[seq]; ok {
		l.sys.ProcessRegistry.Remove(c.pid)
		delete(l.calls, seq)
	}
}

// onInternalReply hands the reply to one of the link's own calls to its
// continuation.
func (l *link) onInternalReply(ctx actor.Context, m *internalReply) {
	c, ok := l.calls[m.seq]
	if !ok {
		return
	}
	l.drop(m.seq)
	c.then(ctx, m.msg)
}

// subscribe forwards a session's subscription through a relay that hands
// the batches to the subscriber; the relay is kept to subscribe again on
// the next daemon.
func (l *link) subscribe(ctx actor.Context, m *messages.Subscribe, sender *actor.PID) {
	r, ok := l.subs[m.Session]
	if !ok || !r.subscriber.Equal(sender) {
		if ok {
			l.sys.ProcessRegistry.Remove(r.pid)
		}
		reg := l.sys.ProcessRegistry
		r = &relay{sys: l.sys, subscriber: sender}
		r.pid, _ = reg.Add(r, "agentlsp-link-relay"+reg.NextId())
		l.subs[m.Session] = r
	}
	if l.att != nil {
		r.ns.Store(l.att.ns)
		ctx.RequestWithCustomSender(l.att.diag, l.att.ns.out(m), r.pid)
	}
}

// track remembers what a replay needs: the sessions, the documents they
// hold and the text of edits, and the edits a client announced itself
// (EditStarted, AwaitEdit) waiting for diagnostics. An Edit in flight
// needs nothing more: it is a call, sent again whole.
func (l *link) track(ctx actor.Context, msg any) {
	l.noteSessions(ctx, msg)
	switch m := msg.(type) {
	case *messages.SyncDocument:
		l.trackSync(m)
	case *messages.Edit:
		l.trackSync(syncOf(m))
	case *messages.FileRequest:
		if m.Session != "" { // it opens the document for the session
			l.trackSync(&messages.SyncDocument{Session: m.Session, Path: m.Path, Action: messages.SyncCurrent})
		}
	case *messages.EndSession:
		for k := range l.docs {
			if k.session == m.Session {
				delete(l.docs, k)
			}
		}
	case *messages.EditStarted:
		l.seq++
		e := &edit{started: m, seq: l.seq}
		if l.att != nil {
			e.gen = l.gen
		}
		l.edits[m.EditID] = e
		l.boundEdits()
	case *messages.EditAborted:
		delete(l.edits, m.EditID)
	case *messages.AwaitEdit:
		if e, ok := l.edits[m.EditID]; ok {
			e.awaiting = true
		}
	}
}

// noteSessions tells the front about a session the first time a message
// names it (any message with a Session field).
func (l *link) noteSessions(ctx actor.Context, msg any) {
	v, ok := structOf(msg)
	if !ok {
		return
	}
	for _, i := range fieldsOf(v.Type()).session {
		s := v.Field(i).String()
		if s == "" || l.sessions[s] {
			continue
		}
		l.sessions[s] = true
		if l.att != nil {
			ctx.Send(l.att.front, &messages.ClientSession{Client: l.att.ns.client, Session: s})
		}
	}
}

// syncOf is the document state an Edit leaves: its text, or the disk's.
func syncOf(m *messages.Edit) *messages.SyncDocument {
	if m.Current {
		return &messages.SyncDocument{Session: m.Session, Path: m.Path, Action: messages.SyncCurrent}
	}
	return &messages.SyncDocument{Session: m.Session, Path: m.Path, Action: messages.SyncChange, Text: m.Text, Create: m.Create}
}

// trackSync records a session's document and ties a change to the edit
// that announced it.
func (l *link) trackSync(m *messages.SyncDocument) {
	abs, err := paths.InWorkspace(l.cfg.workspace, m.Path)
	if err != nil {
		return
	}
	key := docKey{session: m.Session, path: abs}
	old, ok := l.docs[key]
	if !ok {
		l.seq++
		old = &docState{seq: l.seq}
	}
	switch m.Action {
	case messages.SyncCurrent:
		if !ok {
			l.docs[key] = &docState{sync: m, seq: old.seq}
		}
	case messages.SyncChange:
		l.docs[key] = &docState{sync: m, stamp: paths.StampOf(abs), seq: old.seq}
	case messages.SyncClose:
		delete(l.docs, key)
	}
	uri := paths.URI(abs)
	var last *edit
	for _, e := range l.edits {
		if e.sync == nil && e.started.Session == m.Session && e.started.URI == uri && (last == nil || e.seq > last.seq) {
			last = e
		}
	}
	if last != nil {
		last.sync = m
	}
}

// boundEdits forgets the oldest edits beyond maxEdits.
func (l *link) boundEdits() {
	for len(l.edits) > maxEdits {
		var oldest *edit
		for _, e := range l.edits {
			if oldest == nil || e.seq < oldest.seq {
				oldest = e
			}
		}
		delete(l.edits, oldest.started.EditID)
	}
}
