package router

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// keeper is the holder, among a document's sessions, of the files kept
// open because an answer named them (KeepOpen). It cannot be a session's
// name: those come from callers, and this one has a NUL.
const keeper = "\x00kept"

// keptFiles is one server's files kept open for one purpose, the least
// recently named first. A server keeps a few (its OpenTargets, its
// OpenImporters), so a slice serves.
type keptFiles []string

// keptKey names a list of kept files: a server's, of definition targets
// (and files opened for workspace requests), of importers opened before a
// change (importers.go) or of files opened because they changed on disk
// (openChanged). Each list has its own limit.
type keptKey struct {
	server messages.ServerKey
	kind   keptKind
}

// keptKind is what a list of kept files is for.
type keptKind int

const (
	keptTargets keptKind = iota
	keptImporters
	keptChanged
)

// touch makes abs the most recently named and returns the files beyond
// limit, the least recent, to release.
func (k *keptFiles) touch(abs string, limit int) []string {
	l := slices.DeleteFunc(*k, func(p string) bool { return p == abs })
	l = append(l, abs)
	var over []string
	if n := len(l) - limit; n > 0 {
		over = slices.Clone(l[:n])
		l = slices.Delete(l, 0, n)
	}
	*k = l
	return over
}

// remove forgets abs.
func (k *keptFiles) remove(abs string) {
	*k = slices.DeleteFunc(*k, func(p string) bool { return p == abs })
}

// onKeepOpen opens the files an answer named, for the keeper, on servers
// that keep such files; a document already open stays as it is and is only
// marked as kept. Of an answer naming more files than a server keeps, the
// first are kept.
func (r *routerActor) onKeepOpen(ctx actor.Context, m *messages.KeepOpen) {
	named := make(map[messages.ServerKey]int) // files of this answer per server
	for _, p := range m.Paths {
		abs, err := r.inWorkspace(p)
		if err != nil {
			continue
		}
		doc, open := r.docs[abs]
		if !open {
			if doc, err = r.newDocument(abs, false); err != nil {
				continue
			}
		}
		key, limit := keptServer(doc)
		if named[key] >= limit { // none kept, or an answer naming more than are kept
			continue
		}
		named[key]++
		r.keepDoc(ctx, abs, p, doc, open, keptKey{server: key}, limit, func() {})
	}
}

// keep opens abs for the keeper, kept among key's files (at most limit),
// and calls sent once its text is handed to its server actors, or could
// not be.
func (r *routerActor) keep(ctx actor.Context, abs string, key keptKey, limit int, sent func()) {
	doc, open := r.docs[abs]
	if !open {
		d, err := r.newDocument(abs, false)
		if err != nil {
			sent()
			return
		}
		doc = d
	}
	r.keepDoc(ctx, abs, abs, doc, open, key, limit, sent)
}

// keepDoc marks doc (open already, or new) as the keeper's, kept among
// key's files, releasing the least recent beyond limit; a new document is
// read from disk and sent to its servers, then sent is called.
func (r *routerActor) keepDoc(ctx actor.Context, abs, given string, doc *document, open bool, key keptKey, limit int, sent func()) {
	if r.kept == nil {
		r.kept = make(map[keptKey]*keptFiles)
	}
	k := r.kept[key]
	if k == nil {
		k = new(keptFiles)
		r.kept[key] = k
	}
	doc.sessions[keeper] = true
	for _, old := range k.touch(abs, limit) {
		r.release(ctx, old)
	}
	if open {
		sent()
		return
	}
	r.docs[abs] = doc
	r.current(ctx, abs, given, doc, func() {
		r.sendText(ctx, doc, false, r.replyTo(ctx, nil))
		sent()
	}, func(error) {
		r.release(ctx, abs)
		sent()
	})
}

// keptServer returns the server that keeps doc open for the keeper (the
// first of its servers whose OpenTargets is set), and how many files it
// keeps; 0 when none does.
func keptServer(doc *document) (messages.ServerKey, int) {
	for i, t := range doc.targets {
		if n := doc.defs[i].OpenTargets; n > 0 {
			return t.ServerKey, n
		}
	}
	return messages.ServerKey{}, 0
}

// release drops the keeper's hold on abs (closing it on its servers when no
// session holds it) and forgets it.
func (r *routerActor) release(ctx actor.Context, abs string) {
	r.forgetKept(abs)
	if doc := r.docs[abs]; doc != nil && doc.sessions[keeper] {
		r.closeDoc(ctx, abs, doc, keeper, r.replyTo(ctx, nil))
	}
}

// forgetKept removes abs from every server's kept files.
func (r *routerActor) forgetKept(abs string) {
	for _, k := range r.kept {
		k.remove(abs)
	}
}

// releaseUnheld releases the kept files of every server on which no session
// holds a document any more (after a session closed one, or ended): they
// were kept for the sessions' next questions, and would keep an unused
// server from stopping when idle.
func (r *routerActor) releaseUnheld(ctx actor.Context) {
	for key, k := range r.kept {
		if len(*k) == 0 || r.sessionHolds(key.server) {
			continue
		}
		for _, abs := range slices.Clone(*k) {
			r.release(ctx, abs)
		}
		delete(r.kept, key)
	}
}

// sessionHolds reports whether a session holds a document open on key.
func (r *routerActor) sessionHolds(key messages.ServerKey) bool {
	for _, d := range r.docs {
		if len(d.sessions) == 1 && d.sessions[keeper] {
			continue
		}
		for _, t := range d.targets {
			if t.ServerKey == key {
				return true
			}
		}
	}
	return false
}
