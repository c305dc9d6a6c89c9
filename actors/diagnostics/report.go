package diagnostics

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// editResult builds the answer to an edit: the edited file, then up to
// MaxOtherFiles other files in which the edit made new problems appear;
// the edited file's MoreFiles names those left out.
func (a *diagnosticsActor) editResult(e *edits.Edit, timedOut string) *messages.EditResult {
	req := e.Req
	minSev := req.MinSeverity
	if minSev == 0 {
		minSev = messages.SeverityError
	}
	maxEdited, maxOther := req.MaxEdited, req.MaxOtherFiles
	if maxEdited <= 0 {
		maxEdited = dedup.EditedFile
	}
	switch {
	case maxOther == 0:
		maxOther = dedup.OtherFiles
	case maxOther < 0:
		maxOther = 0
	}
	status, detail := a.editStatus(e, timedOut)
	res := &messages.EditResult{ID: req.CallerID, EditID: e.ID, Status: status, Applied: true}

	cur, servers, dropped := a.store.Merged(e.URI, a.store.Get)
	cur = dedup.FilterSeverity(cur, minSev)
	if !req.All {
		base, _, _ := a.store.Merged(e.URI, a.toldBefore(e))
		cur, _, _ = dedup.Delta(dedup.FilterSeverity(base, minSev), cur)
	}
	dedup.Sort(cur)
	kept, more := dedup.Cap(cur, maxEdited)
	res.Files = append(res.Files, messages.FileReport{
		URI: e.URI, Status: status, Diagnostics: kept, More: more + dropped, Servers: servers, Detail: detail,
	})
	var others []messages.FileReport
	if !req.Current {
		res.Files[0].ChangedBy = a.editedBy(e)
	}
	if req.Current {
		others, res.Files[0].MoreFiles = a.sessionCascade(e, minSev, maxOther)
	} else {
		others, res.Meanwhile, res.Files[0].MoreFiles = a.cascade(e, minSev, maxOther)
	}
	res.Files = append(res.Files, others...)
	res.Elapsed = a.now().Sub(e.Started)
	res.Servers = append(res.Servers, req.Servers...)
	a.markDelivered(e.Session, res.Files)
	a.markDelivered(e.Session, res.Meanwhile)
	if e.Session != "" {
		sess := a.session(e.Session)
		sess.answeredSeq, sess.answeredAt = a.store.Seq(), a.now()
		sess.noteAnswer(sess.answeredAt, e.URI)
		sess.noteAnswer(sess.answeredAt, req.Named...)
	}
	return res
}

// baseline looks entries up as they were when e started.
func (a *diagnosticsActor) baseline(e *edits.Edit) func(store.Key) store.Entry {
	return func(k store.Key) store.Entry { return a.store.At(k, e.StartSeq) }
}

// toldBefore is the edited file's baseline: entries as they were when e
// started or, if earlier, at the session's previous answer. What reached
// the servers between the two (the same text taken from disk first, or
// another session's change) was never shown to this session, so it is new
// to it.
func (a *diagnosticsActor) toldBefore(e *edits.Edit) func(store.Key) store.Entry {
	seq := a.toldSince(e)
	return func(k store.Key) store.Entry { return a.store.At(k, seq) }
}

// toldSince is the store's write count from which changes are new to e's
// session: when e started or, if earlier, at the session's previous
// answer. A diagnostics call that is the session's first answer goes back
// to the first change on disk to a file it names, at most maxDiagnoseLag
// before it began: what that change broke elsewhere may have been
// diagnosed before the call (a shared runtime watches the disk; a
// session of its own starts with each `agentlsp check --shared`).
func (a *diagnosticsActor) toldSince(e *edits.Edit) uint64 {
	seq := e.StartSeq
	if e.Session != "" {
		told := a.session(e.Session).answeredSeq
		switch {
		case told > 0 && told < seq:
			seq = told
		case told == 0 && e.Req != nil && e.Req.Current:
			seq = min(seq, a.namedChangedSeq(e))
		}
	}
	return seq
}

// namedChangedSeq is the store's write count at the first change on disk
// to a file e's call names, from maxDiagnoseLag before e began; e's own
// start when there is none.
func (a *diagnosticsActor) namedChangedSeq(e *edits.Edit) uint64 {
	since := e.Started.Add(-maxDiagnoseLag)
	first := sort.Search(len(a.disk), func(i int) bool { return !a.disk[i].at.Before(since) })
	if first == len(a.disk) {
		return e.StartSeq
	}
	named := namedSet(e)
	for _, d := range a.disk[first:] {
		if named[paths.URI(d.path)] {
			return d.seq
		}
	}
	return e.StartSeq
}

// editStatus is the worst status of the edit's servers, with the reasons.
func (a *diagnosticsActor) editStatus(e *edits.Edit, timedOut string) (messages.Status, string) {
	status := messages.StatusFresh
	var details []string
	for _, w := range e.Waits {
		s, why := a.waitStatus(e, w, timedOut)
		if s.Rank() > status.Rank() {
			status = s
		}
		if why != "" {
			details = append(details, w.ServerID+": "+why)
		}
	}
	if len(e.Waits) == 0 {
		status, details = messages.StatusNoServer, []string{"no language server serves this file"}
	}
	return status, strings.Join(details, "; ")
}

// waitStatus says what one server's part of an answer is worth.
func (a *diagnosticsActor) waitStatus(e *edits.Edit, w *edits.Wait, timedOut string) (messages.Status, string) {
	v := a.server(w.ServerKey)
	en := a.store.Get(store.Key{Server: w.ServerKey, URI: e.URI})
	switch {
	case w.Err != nil && errors.Is(w.Err, messages.ErrServerBroken), w.Err == nil && v.broken:
		err := w.Err
		if err == nil {
			err = v.err
		}
		return messages.StatusServerBroken, errText(err)
	case w.Err != nil:
		return messages.StatusServerBroken, w.Err.Error()
	case v.loadFailure != "":
		// Whatever it published, or did not: it may never have checked
		// the file.
		return messages.StatusProjectError, loadText(v.loadFailure)
	case w.Done && timedOut != "" && a.diagnosing(w):
		// The version's diagnostics are in, but the server never said its
		// diagnosis was done: other changes kept it diagnosing (agents
		// editing on one gopls without pause). Fresh, said with care.
		return messages.StatusFresh, "the server was still diagnosing later changes when the wait ended (" +
			timedOut + "): these are its diagnostics of this version so far"
	case w.Done:
		return messages.StatusFresh, ""
	case v.reconfiguring():
		return messages.StatusNotReady, "the server's configuration is changing (" + causeOf(v.err) + "); " + timedOut
	case v.state == messages.StateError:
		return messages.StatusNotReady, "the server crashed and is starting again; " + timedOut + "; " + errText(v.err)
	case v.crash != nil:
		return messages.StatusNotReady, "the server crashed and was started again, nothing from it since; " + timedOut + "; " + errText(v.crash)
	case v.state == messages.StateStarting || v.indexing:
		return messages.StatusNotReady, "still starting or indexing; " + timedOut + a.busy(e, w)
	case !en.Empty() && en.Latest() < w.Version:
		return messages.StatusStale, fmt.Sprintf("the diagnostics shown describe version %d of the file, not version %d; %s%s",
			en.Latest(), w.Version, timedOut, a.busy(e, w))
	}
	return messages.StatusTimeout, timedOut + a.busy(e, w)
}

// busy says why a server may be late: the other edits that waited for it
// when e was released, and the work it reports in progress.
func (a *diagnosticsActor) busy(e *edits.Edit, w *edits.Wait) string {
	ahead := 0
	a.edits.Each(func(o *edits.Edit) {
		if o != e && o.Waiting() && o.Started.Before(e.Started) && o.Serves(w.ServerKey) {
			ahead++
		}
	})
	var parts []string
	if ahead > 0 {
		parts = append(parts, fmt.Sprintf("%d edits of other files were waiting for %s before this one", ahead, w.ServerID))
	}
	if work := a.server(w.ServerKey).work; work != "" {
		parts = append(parts, w.ServerID+" reports: "+work)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; the server is busy: " + strings.Join(parts, "; ")
}

// loadText is the detail of an answer whose server could not load its
// project: the server's own message, for the user to fix the project.
func loadText(failure string) string {
	return "the server could not load the project: " + failure
}

// causeOf is a server error's cause alone, without the kind and the
// server that the answer's detail says already.
func causeOf(err error) string {
	var se *messages.ServerError
	if errors.As(err, &se) && se.Cause != "" {
		return se.Cause
	}
	return errText(err)
}

func errText(err error) string {
	if err == nil {
		return "broken"
	}
	return err.Error()
}

// snapshot answers GetDiagnostics from the store without waiting.
func (a *diagnosticsActor) snapshot(m *messages.GetDiagnostics) *messages.DiagnosticsSnapshot {
	minSev := m.MinSeverity
	if minSev == 0 {
		minSev = messages.SeverityError
	}
	out := &messages.DiagnosticsSnapshot{}
	for _, uri := range m.URIs {
		cur, servers, dropped := a.store.Merged(uri, a.store.Get)
		cur = dedup.FilterSeverity(cur, minSev)
		dedup.Sort(cur)
		kept, more := dedup.Cap(cur, dedup.EditedFile)
		status, detail := a.fileStatus(uri)
		out.Files = append(out.Files, messages.FileReport{
			URI: uri, Status: status, Diagnostics: kept, More: more + dropped, Servers: servers, Detail: detail,
		})
	}
	return out
}

// fileStatus says whether what is stored for a document is current.
func (a *diagnosticsActor) fileStatus(uri string) (messages.Status, string) {
	return a.status(uri, false)
}

// status is fileStatus; sameText counts diagnostics of a version whose
// text the document still has as current, though touches (new versions of
// the same text) were sent since.
func (a *diagnosticsActor) status(uri string, sameText bool) (messages.Status, string) {
	servers := a.store.Servers(uri)
	if len(servers) == 0 {
		return messages.StatusNotReady, "no diagnostics received for this file yet"
	}
	status, detail := messages.StatusFresh, ""
	for _, k := range servers {
		v, key := a.server(k), store.Key{Server: k, URI: uri}
		switch {
		case v.broken:
			status, detail = messages.StatusServerBroken, k.ServerID+": "+errText(v.err)
		case v.loadFailure != "" && status.Rank() < messages.StatusProjectError.Rank():
			status, detail = messages.StatusProjectError, k.ServerID+": "+loadText(v.loadFailure)
		case v.indexing && status.Rank() < messages.StatusNotReady.Rank():
			status, detail = messages.StatusNotReady, k.ServerID+": "+cmp.Or(v.work, "indexing")
		case status != messages.StatusFresh:
		case a.versions[key] == closedVersion:
			status, detail = messages.StatusStale, k.ServerID+": closed; no diagnostics of the file on disk yet"
		case a.described(key, v) < a.wanted(key, sameText):
			status, detail = messages.StatusStale, k.ServerID+": diagnostics describe an older version"
		}
	}
	return status, detail
}

// described is the newest version the stored diagnostics of key describe:
// for a server that is pulled, its pull's (what it pushes besides is
// partial, as when an edit waits: satisfied).
func (a *diagnosticsActor) described(key store.Key, v *serverView) int32 {
	en := a.store.Get(key)
	if v.pulls {
		return en.Pulled()
	}
	return en.Latest()
}

// wanted is the version stored diagnostics must describe to be current:
// the latest sent, or with sameText the oldest with its text, when every
// version since was a touch.
func (a *diagnosticsActor) wanted(k store.Key, sameText bool) int32 {
	v := a.versions[k]
	if sent, ok := a.views[k]; sameText && ok && sent.version >= v && sent.text < v {
		return sent.text
	}
	return v
}
