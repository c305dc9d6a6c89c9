package diagnostics

import (
	"slices"
	"sort"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Other files in an answer. An edit (Session.Edit) reports the files its
// change broke: new errors against the edit's baseline. A diagnostics
// call (Session.Diagnostics, All set) reports the files whose diagnostics
// changed since the session's previous answer, or since the call began,
// with errors the session was not shown yet: an agent that changed files
// on disk between two calls hears of what the change broke elsewhere.

// cascade finds the other documents whose diagnostics changed since the
// edit started and that now have problems they did not have: importers
// broken by the edit. It returns at most maxFiles of each kind and left,
// the URIs of the files the edit broke that did not fit (none when
// maxFiles is 0: no other file was asked for).
func (a *diagnosticsActor) cascade(e *edits.Edit, minSev messages.Severity, maxFiles int) (caused, meanwhile []messages.FileReport, left []string) {
	uris := a.othersChanged(e, e.StartSeq)
	if len(uris) == 0 || maxFiles <= 0 {
		return nil, nil, nil
	}
	over, views := a.edits.Overlapping(e), a.editViews(e)
	for _, u := range uris {
		if !a.reportable(u) || !a.askedAfter(views, u) { // before the work on what it has
			continue
		}
		unchecked := a.uncheckedAt(u, e.StartSeq) // no baseline: its errors are not the edit's
		others := unchecked || a.othersMay(e, u, over)
		if others && len(meanwhile) == maxFiles {
			continue // its list is full
		}
		cur, servers, _ := a.store.Merged(u, a.store.Get)
		base, _, _ := a.store.Merged(u, a.baseline(e))
		added, _, _ := dedup.Delta(dedup.FilterSeverity(base, minSev), dedup.FilterSeverity(cur, minSev))
		switch {
		case len(added) == 0:
			continue
		case !others && len(caused) == maxFiles:
			left = append(left, u) // counted, so that the answer says so
			continue
		}
		dedup.Sort(added)
		kept, more := dedup.Cap(added, dedup.PerFile)
		f := messages.FileReport{URI: u, Status: messages.StatusFresh, Diagnostics: kept, More: more,
			Servers: servers, Other: true}
		if !others {
			caused = append(caused, f)
			continue
		}
		f.ChangedBy = withFirstChecked(unchecked, a.attribute(e, u, over))
		meanwhile = append(meanwhile, f)
	}
	return caused, meanwhile, left
}

// sessionCascade finds, for a diagnostics call, the documents of its
// servers written since the session's previous answer (or since the call
// began, for a first answer) whose errors were not shown to the session,
// each with the changes other than to the files the call named that could
// have made them (ChangedBy); at most maxFiles of them, and left, the URIs
// of the other such documents, which are not marked delivered.
func (a *diagnosticsActor) sessionCascade(e *edits.Edit, minSev messages.Severity, maxFiles int) (out []messages.FileReport, left []string) {
	if maxFiles <= 0 || e.Session == "" {
		return nil, nil
	}
	sess := a.session(e.Session)
	told := a.toldSince(e)
	uris := a.othersChanged(e, told)
	if len(uris) == 0 {
		return nil, nil
	}
	sc := a.sessionScope(e, sess)
	over := a.sessionOver(e, sc)
	from := namedEdits(e, over)
	views := a.editViews(e)
	named := namedSet(e)
	for _, u := range uris {
		cur, servers, _ := a.store.Merged(u, a.store.Get)
		cur = dedup.FilterSeverity(cur, minSev)
		sess.delivered.Retain(u, cur)
		unseen := sess.delivered.Unseen(u, cur)
		if len(unseen) == 0 || !a.reportable(u) || !a.askedAfter(views, u) {
			continue
		}
		if len(out) == maxFiles {
			if !named[u] {
				left = append(left, u) // counted, so that the answer says so
			}
			continue
		}
		dedup.Sort(unseen)
		kept, more := dedup.Cap(unseen, dedup.PerFile)
		out = append(out, messages.FileReport{URI: u, Status: messages.StatusFresh, Diagnostics: kept, More: more,
			Servers: servers, Other: true,
			ChangedBy: withFirstChecked(a.uncheckedAt(u, told), a.sessionCauses(e, u, sc, told, over, from))})
	}
	return out, left
}

// reportable says whether another file may be in an answer: it is still
// on disk (a deleted file was named, fresh, with its old error), and what
// is stored describes the text its servers have (one rewritten on disk was
// named, fresh, with an error of its previous text; the next answer
// reports it once its server has diagnosed the new text). A touch since
// (another session's diagnostics call about the file) changed no text:
// what the server published for the text before it, once the answer's
// change was sent, describes the file with that change (askedAfter checks
// a pull's view); an answer left out a file the edit broke while another
// agent kept asking about it (TestAnotherSessionsDiagnosticsCallIsNoChange).
func (a *diagnosticsActor) reportable(uri string) bool {
	if a.gone.has(paths.FromURI(uri)) {
		return false
	}
	status, _ := a.status(uri, true)
	return status == messages.StatusFresh
}

// sentView is the latest version of a document sent to a server, how far
// the server's view had come with it, and the oldest version with the
// same text: the versions after it are touches (DocumentSent.Touch).
type sentView struct {
	version int32
	view    uint64
	text    int32
}

// sentOf is the view a server had with the document of an edit as the edit
// left it.
type sentOf struct {
	server messages.ServerKey
	view   uint64
}

// editViews returns, for each server e waits for, the view it had with
// e's document as e left it; servers whose send is not known are left out
// (nothing to compare with). Taken once for all the files of an answer.
func (a *diagnosticsActor) editViews(e *edits.Edit) []sentOf {
	var out []sentOf
	for _, w := range e.Waits {
		if sent, ok := a.views[store.Key{Server: w.ServerKey, URI: e.URI}]; ok && sent.version >= w.Version {
			out = append(out, sentOf{server: w.ServerKey, view: sent.view})
		}
	}
	return out
}

// askedAfter reports whether what the servers pulled for the other
// document uri was asked for once each had the edit's document as the
// edit left it (views: editViews). A pull asked for before describes a
// workspace without the edit's change: pyright's answer for a file it had
// open, about a module deleted on disk in the same round, came in after
// the answer to the deletion's edit, which named the file fresh with its
// previous error (its re-pull was still out). A push is not checked: it
// says nothing of when it was computed.
func (a *diagnosticsActor) askedAfter(views []sentOf, uri string) bool {
	for _, v := range views {
		en := a.store.Get(store.Key{Server: v.server, URI: uri})
		pulled := en.Pull != nil && (en.Push == nil || !en.Push.HasVersion || en.Push.Version <= en.Pull.Version)
		if pulled && en.Pull.View < v.view {
			return false
		}
	}
	return true
}

// othersChanged returns, sorted, the documents other than e's whose
// diagnostics from e's servers were written after seq.
func (a *diagnosticsActor) othersChanged(e *edits.Edit, seq uint64) []string {
	mine := make([]messages.ServerKey, 0, len(e.Waits))
	for _, w := range e.Waits {
		if !slices.Contains(mine, w.ServerKey) {
			mine = append(mine, w.ServerKey)
		}
	}
	changed := a.store.ChangedSince(seq, mine, func(k store.Key) bool { return k.URI != e.URI })
	uris := make([]string, 0, len(changed))
	for u := range changed {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	return uris
}
