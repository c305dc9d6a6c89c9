package router

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/textpos"
)

// document is a file open on its servers: the one record of a document's
// state in the runtime. It holds the text its servers have, the disk's
// stamp when that text was set (so the text is replaced by the disk's only
// when the disk changed after it), the versions the servers gave it, and
// the sessions that hold it open (it is closed on its servers when the
// last one closes it). Server actors keep their own copy of what their
// process has, to re-open it after a restart; sessions keep nothing.
type document struct {
	path, uri string
	targets   []messages.Target
	defs      []*config.Server
	sessions  map[string]bool
	routedGen uint64 // the router's rootsGen when targets were found

	text     string
	lines    *textpos.Lines // text's lines, indexed for the first position checked in it
	stamp    paths.Stamp    // the disk when text was set; zero when the file did not exist
	fromDisk bool           // text was read from disk (else an agent's edit)
	gen      uint64         // counts text changes: a disk read started before one is stale
	versions []messages.ServerVersion
	// sentGen is the gen whose text every server actor took, sentTo those
	// actors (their PIDs' ids, in targets' order): see textSent.
	sentGen uint64
	sentTo  []string
}

// setText records the text the servers are sent now.
func (d *document) setText(text string, stamp paths.Stamp, fromDisk bool) {
	d.text, d.stamp, d.fromDisk = text, stamp, fromDisk
	d.lines = nil
	d.gen++
}

// indexed returns the text with its lines indexed, once per text.
func (d *document) indexed() *textpos.Lines {
	if d.lines == nil {
		d.lines = textpos.NewLines(d.text)
	}
	return d.lines
}

// current reports whether the text the servers have is what the file
// should hold now: the disk has not changed since the text was set (an
// agent's unsaved edit stays current until the disk changes after it).
func (d *document) current(now paths.Stamp) bool {
	return d.gen > 0 && now.SameFile(d.stamp)
}

// openFiles is the number of documents open on a server.
func (r *routerActor) openFiles(key messages.ServerKey) int {
	n := 0
	for _, d := range r.docs {
		for _, t := range d.targets {
			if t.ServerKey == key {
				n++
			}
		}
	}
	return n
}

// newDocument resolves a file's servers for a new document; with create,
// the file may be missing on disk (a document in memory).
func (r *routerActor) newDocument(path string, create bool) (*document, error) {
	rt, err := r.route(path, create)
	if err != nil {
		return nil, err
	}
	return &document{path: rt.path, uri: rt.uri, targets: rt.targets, defs: rt.defs, sessions: make(map[string]bool),
		routedGen: r.rootsGen}, nil
}

// reroute moves an open document to the servers its path resolves to now,
// when a file appeared or disappeared since it was routed (a root marker
// may have): it is closed on the servers it leaves, and its next text is
// sent to the ones it joins as an open. A tsconfig.json deleted beside a
// file left it open on the server whose root was that directory: tsserver
// looks for a file's project no higher than the root, and answered from
// an inferred project, fresh, where tsc used the tsconfig.json above.
// A path that no longer resolves keeps its servers: the sync says why.
func (r *routerActor) reroute(ctx actor.Context, doc *document) {
	if doc.routedGen == r.rootsGen {
		return
	}
	doc.routedGen = r.rootsGen
	rt, err := r.route(doc.path, true)
	if err != nil || slices.Equal(rt.targets, doc.targets) {
		return
	}
	left := &document{path: doc.path, uri: doc.uri, targets: doc.targets, defs: doc.defs}
	r.fanoutSync(ctx, left, func(messages.Target) any { return &messages.CloseDocument{URI: doc.uri, Left: true} },
		func(fs *messages.FileSynced) { r.logSyncErrors("close on the servers of its old root", fs) })
	doc.targets, doc.defs = rt.targets, rt.defs
	doc.versions, doc.sentGen, doc.sentTo = nil, 0, nil
}
