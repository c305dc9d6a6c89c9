// Package pulls is the server actor's pull-diagnostics scheduler (LSP 3.17
// textDocument/diagnostic): which documents to pull, for which provider
// identifiers, with which previous resultId, and when a document's
// combined result is complete and may be published.
//
// A document has at most one round in flight; a newer version asked for
// during a round makes one more round when it ends. When a provider has
// inter-file dependencies, a change also re-pulls other open documents (at
// most MaxOthers of them, the most recently changed first), and the
// changed document's own result is held back until those re-pulls
// published theirs, so whoever waits for the change's diagnostics sees its
// effect on the other files too.
//
// A Scheduler is a single-threaded core: owned by one actor, no
// goroutines, no I/O; not safe for concurrent use.
package pulls

import (
	"slices"
	"sort"

	"github.com/agentlsp/agentlsp/messages"
)

// MaxOthers bounds the other open documents one change re-pulls.
const MaxOthers = 16

// Provider is one source of pull diagnostics: the static
// diagnosticProvider or a dynamic registration with its identifier.
type Provider struct {
	Identifier string // "" when the server gives none
	InterFile  bool   // a change in one file may change others' diagnostics
}

// Request is one textDocument/diagnostic request to send.
type Request struct {
	URI              string
	Version          int32
	Identifier       string
	PreviousResultID string
}

// Doc is an open document: its URI, version and when it last changed (a
// larger Seq is more recent); View is how far the server's view had come
// when the pull was asked for (the document store's Seq then).
type Doc struct {
	URI     string
	Version int32
	Seq     uint64
	View    uint64
}

// Result is a document's combined pull result, ready to publish: every
// provider's items for Version, asked for once the server's view had come
// to View.
type Result struct {
	URI         string
	Version     int32
	View        uint64
	Diagnostics []messages.Diagnostic
}

// Report is one provider's answer: Kind "full" with Items, or
// "unchanged" (the previous items stand). Failed is true when the request
// failed: the provider's previous items stand.
type Report struct {
	Kind     string
	ResultID string
	Items    []messages.Diagnostic
	Failed   bool
}

// state is one document's pull state.
type state struct {
	version   int32    // the version the round in flight pulls for
	view      uint64   // the server's view when the round was asked for
	left      int      // requests of the round not answered
	again     *Doc     // a newer version asked for during the round
	againOf   []*group // the changes that asked for it (their held results wait for it)
	resultIDs map[string]string
	items     map[string][]messages.Diagnostic
	groups    []*group // the changes whose re-pulls this round is part of
	failed    bool     // a request of the round failed: its result is not complete
}

// group holds back the pulled result of a changed document until the
// other documents re-pulled because of it published theirs.
type group struct {
	uri  string
	left int
	held *Result
}

// Scheduler holds the pull state of one server's documents.
type Scheduler struct {
	docs map[string]*state
}

// New returns an empty scheduler.
func New() *Scheduler { return &Scheduler{docs: make(map[string]*state)} }

// Pull starts a round for d with provs (or, when a round is in flight,
// marks one more) and returns the requests to send.
func (s *Scheduler) Pull(d Doc, provs []Provider) []Request { return s.pull(d, provs, nil) }

// PullChange pulls a changed document and, when a provider has inter-file
// dependencies, up to MaxOthers of the other open documents, most
// recently changed first; the changed document's result is published last.
// others is called only then, with a function that yields each open
// document; the most recent are kept as they come (no sort of them all).
func (s *Scheduler) PullChange(changed Doc, others func(yield func(Doc)), provs []Provider) []Request {
	if !InterFile(provs) {
		return s.Pull(changed, provs)
	}
	g := &group{uri: changed.URI}
	out := s.pull(changed, provs, g)
	for _, o := range recent(changed.URI, others) {
		out = append(out, s.pull(o, provs, g)...)
	}
	return out
}

// recent returns the MaxOthers documents of others, but uri, most recently
// changed first (ties: by URI).
func recent(uri string, others func(yield func(Doc))) []Doc {
	top := make([]Doc, 0, MaxOthers+1)
	newer := func(a, b Doc) bool { return a.Seq > b.Seq || a.Seq == b.Seq && a.URI < b.URI }
	others(func(o Doc) {
		if o.URI == uri || len(top) == MaxOthers && !newer(o, top[MaxOthers-1]) {
			return
		}
		i := sort.Search(len(top), func(i int) bool { return newer(o, top[i]) })
		top = slices.Insert(top, i, o)
		if len(top) > MaxOthers {
			top = top[:MaxOthers]
		}
	})
	return top
}

// InterFile reports whether a provider's diagnostics depend on other
// files: a change then re-pulls the other open documents.
func InterFile(provs []Provider) bool {
	for _, p := range provs {
		if p.InterFile {
			return true
		}
	}
	return false
}

func (s *Scheduler) pull(d Doc, provs []Provider, g *group) []Request {
	var gs []*group
	if g != nil {
		gs = []*group{g}
	}
	return s.pullCounted(d, provs, gs, false)
}

// pullCounted starts a round; counted says the groups already count it
// (a round asked for while another was in flight).
func (s *Scheduler) pullCounted(d Doc, provs []Provider, gs []*group, counted bool) []Request {
	if len(provs) == 0 {
		return nil
	}
	st := s.docs[d.URI]
	if st == nil {
		st = &state{resultIDs: map[string]string{}, items: map[string][]messages.Diagnostic{}}
		s.docs[d.URI] = st
	}
	if st.left > 0 {
		again := d
		st.again = &again
		for _, g := range gs {
			st.waitFor(g, d.URI)
		}
		return nil
	}
	st.version, st.view, st.left, st.groups = d.Version, d.View, len(provs), gs
	if !counted {
		for _, g := range gs {
			g.left++
		}
	}
	out := make([]Request, len(provs))
	for i, p := range provs {
		out[i] = Request{URI: d.URI, Version: d.Version, Identifier: p.Identifier, PreviousResultID: st.resultIDs[p.Identifier]}
	}
	return out
}

// Done records one provider's answer for (uri, version). When it completes
// the round it returns the results to publish now (the document's own, and
// a changed document's held one once its group is complete) and the
// requests of the round asked for meanwhile. Answers for another round
// are ignored.
func (s *Scheduler) Done(uri string, version int32, ident string, r Report, provs []Provider) ([]Result, []Request) {
	st := s.docs[uri]
	if st == nil || st.version != version || st.left == 0 {
		return nil, nil
	}
	st.left--
	if r.Failed {
		st.failed = true
	} else {
		st.resultIDs[ident] = r.ResultID
		if r.Kind != "unchanged" {
			st.items[ident] = r.Items
		}
	}
	if st.left > 0 {
		return nil, nil
	}
	res := st.result(uri)
	publish := st.release(res, st.failed)
	st.failed = false
	var next []Request
	if st.again != nil {
		d, gs := *st.again, st.againOf
		st.again, st.againOf = nil, nil
		next = s.pullCounted(d, provs, gs, true)
	}
	return publish, next
}

// waitFor makes g, a change, wait for the document's next round: the
// change's result is held until then. Every change that re-pulls the
// document waits for that one round. A change of the document itself
// supersedes an older one still waiting: the next round pulls the newer
// version, and it is the newer change's result (the older one's version
// is never pulled).
func (st *state) waitFor(g *group, uri string) {
	if slices.Contains(st.againOf, g) {
		return
	}
	if g.uri == uri {
		st.againOf = slices.DeleteFunc(st.againOf, func(old *group) bool {
			if old.uri != uri {
				return false
			}
			old.left--
			return true
		})
	}
	st.againOf = append(st.againOf, g)
	g.left++
}

// release returns what to publish once a round ended: its result, unless
// it is the changed document of one of its groups (held there), and the
// held results of the groups it completes. A round with a failed request
// publishes nothing: the previous items under the new version would pass
// for a fresh answer.
func (st *state) release(res Result, failed bool) []Result {
	gs := st.groups
	st.groups = nil
	var out []Result
	held := false
	for _, g := range gs {
		if g.uri == res.URI && !failed {
			g.held, held = &res, true
		}
	}
	if !failed && !held {
		out = append(out, res)
	}
	for _, g := range gs {
		if g.left--; g.left == 0 && g.held != nil {
			out = append(out, *g.held)
		}
	}
	return out
}

// result combines the providers' items, in identifier order.
func (st *state) result(uri string) Result {
	idents := make([]string, 0, len(st.items))
	for id := range st.items {
		idents = append(idents, id)
	}
	sort.Strings(idents)
	var all []messages.Diagnostic
	for _, id := range idents {
		all = append(all, st.items[id]...)
	}
	return Result{URI: uri, Version: st.version, View: st.view, Diagnostics: all}
}

// Forget drops a closed document's state; a round in flight is ignored
// when it answers. When that round was part of a change's group, the
// group no longer waits for it: a held result that was waiting only for
// it is returned, to publish now.
func (s *Scheduler) Forget(uri string) []Result {
	st := s.docs[uri]
	delete(s.docs, uri)
	if st == nil || st.left == 0 {
		return nil
	}
	var out []Result
	for _, g := range slices.Concat(st.groups, st.againOf) {
		if g.left--; g.left == 0 && g.held != nil {
			out = append(out, *g.held)
		}
	}
	return out
}

// Reset drops everything (a new server process).
func (s *Scheduler) Reset() { clear(s.docs) }

// Pulled reports whether a round for uri's version (or a later one)
// ended, none being in flight.
func (s *Scheduler) Pulled(uri string, version int32) bool {
	st := s.docs[uri]
	return st != nil && st.left == 0 && st.again == nil && st.version >= version
}

// InFlight reports whether a round for uri is in flight.
func (s *Scheduler) InFlight(uri string) bool {
	st := s.docs[uri]
	return st != nil && st.left > 0
}
