package router

import (
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// syncTimeout bounds the wait for a server actor's reply to a document
// message (it replies at once; this only guards against a lost actor).
const syncTimeout = 30 * time.Second

// answer receives the outcome of a document action: the reply to a
// requester, or the next step of an edit.
type answer func(*messages.FileSynced)

// replyTo answers a requester that may be gone (nil).
func (r *routerActor) replyTo(ctx actor.Context, to *actor.PID) answer {
	return func(fs *messages.FileSynced) { r.reply(ctx, to, fs) }
}

// reply sends msg to a requester that may be gone (nil).
func (r *routerActor) reply(ctx actor.Context, to *actor.PID, msg any) {
	if to != nil {
		ctx.Send(to, msg)
	}
}

// onSync opens, changes, saves or closes a file on all its servers.
func (r *routerActor) onSync(ctx actor.Context, sender *actor.PID, m *messages.SyncDocument) {
	r.sync(ctx, m, r.replyTo(ctx, sender))
}

// sync carries out a document action and answers with the versions the
// servers now have.
func (r *routerActor) sync(ctx actor.Context, m *messages.SyncDocument, done answer) {
	switch m.Action {
	case messages.SyncChange, messages.SyncCurrent:
		abs, doc, err := r.open(ctx, m.Path, m.Session, m.Create && m.Action == messages.SyncChange)
		if err != nil {
			done(&messages.FileSynced{Path: m.Path, Err: err})
			return
		}
		if m.Action == messages.SyncChange {
			doc.setText(m.Text, paths.StampOf(abs), false)
			r.sendText(ctx, doc, m.Fresh, done)
			return
		}
		r.current(ctx, abs, m.Path, doc, func() { r.sendText(ctx, doc, m.Fresh, done) },
			func(err error) { done(&messages.FileSynced{Path: abs, URI: doc.uri, Err: err}) })
	case messages.SyncSave, messages.SyncClose:
		abs, err := r.inWorkspace(m.Path)
		switch {
		case err != nil:
			done(&messages.FileSynced{Path: m.Path, Err: err})
		case m.Action == messages.SyncSave:
			r.save(ctx, abs, r.docs[abs], done)
		default:
			r.closeDoc(ctx, abs, r.docs[abs], m.Session, done)
			r.releaseUnheld(ctx)
		}
	default:
		done(&messages.FileSynced{Path: m.Path, Err: fmt.Errorf("agentlsp: unknown sync action %d", m.Action)})
	}
}

// open returns the document of path, opened (create: it may be missing on
// disk) and held by session.
func (r *routerActor) open(ctx actor.Context, path, session string, create bool) (string, *document, error) {
	abs, err := r.inWorkspace(path)
	if err != nil {
		return "", nil, err
	}
	doc := r.docs[abs]
	if doc == nil {
		if doc, err = r.newDocument(path, create); err != nil {
			return "", nil, err
		}
		r.docs[abs] = doc
	}
	r.reroute(ctx, doc)
	doc.sessions[session] = true
	return abs, doc, nil
}

// current brings a document up to date with the disk: ready runs at once
// when the disk has not changed since its text was set (or it is an
// overlay not on disk), else once the disk's text is read (in a reaper
// goroutine); a text set meanwhile is newer, and kept. With SyncCurrent's
// Fresh, servers that got nothing new are then asked to diagnose the
// document again if anything changed on them since (TouchDocument).
func (r *routerActor) current(ctx actor.Context, abs, given string, doc *document, ready func(), fail func(error)) {
	stamp := paths.StampOf(abs)
	if doc.current(stamp) || !stamp.Exists() && !doc.stamp.Exists() && doc.gen > 0 {
		ready()
		return
	}
	if doc.gen > 0 && stamp.Exists() { // the disk changed after the text was set, and no watcher said so (the barrier is passed)
		r.tellUnseen(ctx, false, abs, messages.FileChanged)
	}
	gen := doc.gen
	r.readDisk(ctx, abs, given, func(read *diskRead) {
		switch {
		case r.docs[abs] != doc:
			fail(messages.ErrNotOpen)
		case read.err != nil:
			fail(read.err)
		case doc.gen != gen:
			ready()
		default:
			doc.setText(read.text, read.stamp, true)
			ready()
		}
	})
}

// sendText sends the document's text to every server (a no-op for those
// that have it) and answers with their versions; with fresh, servers that
// had it already are touched.
func (r *routerActor) sendText(ctx actor.Context, doc *document, fresh bool, done answer) {
	text, gen, edited := doc.text, doc.gen, !doc.fromDisk
	actors := make([]string, len(doc.targets))
	for i, t := range doc.targets {
		actors[i] = r.server(ctx, t.ServerKey, doc.defs[i]).pid.Id
	}
	r.fanoutSync(ctx, doc, func(t messages.Target) any {
		return &messages.OpenDocument{URI: doc.uri, LanguageID: t.LanguageID, Text: text, Edited: edited}
	}, func(fs *messages.FileSynced) {
		if doc.gen == gen && !slices.ContainsFunc(fs.Servers, func(sv messages.ServerVersion) bool { return sv.Err != nil }) {
			doc.sentGen, doc.sentTo = gen, actors
		}
		fs.Text = text
		if fresh {
			r.touchUnchanged(ctx, doc, fs, done)
			return
		}
		done(fs)
	})
}

// textSent reports whether every server actor of doc took its current
// text, and is still the actor that took it: sending it again would change
// nothing (a server actor re-opens its documents after a restart of its
// process itself).
func (r *routerActor) textSent(doc *document) bool {
	if doc.sentGen != doc.gen || len(doc.sentTo) != len(doc.targets) {
		return false
	}
	for i, t := range doc.targets {
		if e, ok := r.servers[t.ServerKey]; !ok || e.idle || e.pid.Id != doc.sentTo[i] {
			return false
		}
	}
	return true
}

// touchUnchanged asks the servers that got nothing new to diagnose the
// document again if anything changed on them since its version, and then
// answers with every server's version. A server may answer with the touch
// of another document that stands for this one's (messages.Barrier).
func (r *routerActor) touchUnchanged(ctx actor.Context, doc *document, fs *messages.FileSynced, done answer) {
	var idx []int
	for i, sv := range fs.Servers {
		if !sv.Changed && sv.Err == nil {
			idx = append(idx, i)
		}
	}
	left := len(idx)
	if left == 0 {
		done(fs)
		return
	}
	for _, i := range idx {
		e := r.server(ctx, fs.Servers[i].ServerKey, doc.defs[i])
		e.sent++
		fs.Servers[i].SentAt = time.Now()
		f := ctx.RequestFuture(e.pid, &messages.TouchDocument{URI: doc.uri}, syncTimeout)
		ctx.ReenterAfter(f, func(res any, err error) {
			if s, ok := res.(*messages.DocumentSynced); ok && err == nil && s.Err == nil {
				fs.Servers[i].Version, fs.Servers[i].Changed = s.Version, s.Changed
				if s.Barrier != nil { // another document's touch stands for this one's
					fs.Servers[i].Barrier, fs.Servers[i].SentAt = s.Barrier, s.Barrier.SentAt
				}
				fs.Servers[i].PullView = s.PullView
			}
			if left--; left == 0 {
				doc.versions = fs.Servers
				done(fs)
			}
		})
	}
}

// save writes the text the servers have to disk when it differs from the
// disk's (an agent's edit, or a document that exists only in memory), then
// sends didSave.
func (r *routerActor) save(ctx actor.Context, abs string, doc *document, done answer) {
	if doc == nil {
		done(&messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
		return
	}
	didSave := func() {
		r.fanoutSync(ctx, doc, func(messages.Target) any { return &messages.SaveDocument{URI: doc.uri} }, done)
	}
	if doc.fromDisk && doc.current(paths.StampOf(abs)) {
		didSave()
		return
	}
	text, gen := doc.text, doc.gen
	r.writeDisk(ctx, abs, text, func(stamp paths.Stamp, err error) {
		if err != nil {
			done(&messages.FileSynced{Path: abs, URI: doc.uri, Err: err})
			return
		}
		if doc.gen == gen {
			doc.stamp, doc.fromDisk = stamp, true // the disk holds the text now
		}
		didSave()
	})
}

// closeDoc drops the session's reference; the last one closes the
// document on its servers.
func (r *routerActor) closeDoc(ctx actor.Context, abs string, doc *document, session string, done answer) {
	if doc == nil || !doc.sessions[session] {
		done(&messages.FileSynced{Path: abs, Err: messages.ErrNotOpen})
		return
	}
	delete(doc.sessions, session)
	if len(doc.sessions) > 0 {
		done(&messages.FileSynced{Path: abs, URI: doc.uri})
		return
	}
	r.closeOnServers(ctx, doc, done)
}

// closeOnServers closes a document on every server and forgets it.
func (r *routerActor) closeOnServers(ctx actor.Context, doc *document, done answer) {
	delete(r.docs, doc.path)
	r.forgetKept(doc.path)
	r.fanoutSync(ctx, doc, func(messages.Target) any { return &messages.CloseDocument{URI: doc.uri} }, done)
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
			r.closeOnServers(ctx, doc, r.replyTo(ctx, nil))
		}
	}
	r.releaseUnheld(ctx)
	r.reply(ctx, sender, &messages.SessionEnded{Session: m.Session, Released: closed})
}

// fanoutSync sends one document message per target and, once every server
// actor answered, answers with all their versions.
func (r *routerActor) fanoutSync(ctx actor.Context, doc *document, msg func(messages.Target) any, done answer) {
	reply := &messages.FileSynced{Path: doc.path, URI: doc.uri, Servers: make([]messages.ServerVersion, len(doc.targets))}
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
				done(reply)
			}
		})
	}
}
