package actors

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

// editResult builds the answer to an edit: the edited file, then up to
// MaxOtherFiles other files in which the edit made new problems appear.
func (a *diagnosticsActor) editResult(e *edit, timedOut string) *messages.EditResult {
	req := e.req
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
	res := &messages.EditResult{EditID: e.id, Status: status}

	cur, servers, dropped := a.mergedWith(e.uri, a.entry)
	cur = dedup.FilterSeverity(cur, minSev)
	if !req.All {
		base, _, _ := a.mergedWith(e.uri, a.baseline(e))
		cur, _, _ = dedup.Delta(dedup.FilterSeverity(base, minSev), cur)
	}
	dedup.Sort(cur)
	kept, more := dedup.Cap(cur, maxEdited)
	res.Files = append(res.Files, messages.FileReport{
		URI: e.uri, Status: status, Diagnostics: kept, More: more + dropped, Servers: servers, Detail: detail,
	})
	res.Files = append(res.Files, a.cascade(e, minSev, maxOther)...)
	res.Elapsed = time.Since(e.started)
	a.markDelivered(e.session, res.Files)
	return res
}

// baseline looks entries up as they were when e started.
func (a *diagnosticsActor) baseline(e *edit) func(diagKey) diagEntry {
	return func(k diagKey) diagEntry { return a.entryAt(k, e.startSeq) }
}

// mergedWith is every server's diagnostics of a document, looked up with
// get (the store now, or an edit's baseline).
func (a *diagnosticsActor) mergedWith(uri string, get func(diagKey) diagEntry) ([]messages.Diagnostic, []string, int) {
	keys := make([]messages.ServerKey, 0, len(a.byURI[uri]))
	for k := range a.byURI[uri] {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].ServerID < keys[j].ServerID || keys[i].ServerID == keys[j].ServerID && keys[i].Root < keys[j].Root
	})
	var all []messages.Diagnostic
	var servers []string
	dropped := 0
	for _, k := range keys {
		e := get(diagKey{server: k, uri: uri})
		if e.push == nil && e.pull == nil {
			continue
		}
		all = union(all, e.current())
		servers = append(servers, k.ServerID)
		if e.push != nil {
			dropped += e.push.dropped
		}
	}
	return all, servers, dropped
}

// editStatus is the worst status of the edit's servers, with the reasons.
func (a *diagnosticsActor) editStatus(e *edit, timedOut string) (messages.Status, string) {
	status := messages.StatusFresh
	var details []string
	for _, w := range e.waits {
		s, why := a.waitStatus(w, timedOut)
		if s.Rank() > status.Rank() {
			status = s
		}
		if why != "" {
			details = append(details, w.ServerID+": "+why)
		}
	}
	if len(e.waits) == 0 {
		status, details = messages.StatusNoServer, []string{"no language server serves this file"}
	}
	return status, strings.Join(details, "; ")
}

func (a *diagnosticsActor) waitStatus(w *serverWait, timedOut string) (messages.Status, string) {
	v := a.server(w.ServerKey)
	switch {
	case w.Err != nil && errors.Is(w.Err, messages.ErrServerBroken), w.Err == nil && v.broken:
		err := w.Err
		if err == nil {
			err = v.err
		}
		return messages.StatusServerBroken, errText(err)
	case w.Err != nil:
		return messages.StatusServerBroken, w.Err.Error()
	case w.done:
		return messages.StatusFresh, ""
	case v.state == messages.StateStarting || v.indexing:
		return messages.StatusNotReady, "still starting or indexing; " + timedOut
	}
	return messages.StatusTimeout, timedOut
}

func errText(err error) string {
	if err == nil {
		return "broken"
	}
	return err.Error()
}

// cascade finds the other documents whose diagnostics changed since the
// edit started and that now have problems they did not have: importers
// broken by the edit.
func (a *diagnosticsActor) cascade(e *edit, minSev messages.Severity, maxFiles int) []messages.FileReport {
	mine := make(map[messages.ServerKey]bool, len(e.waits))
	for _, w := range e.waits {
		mine[w.ServerKey] = true
	}
	changed := make(map[string]bool)
	for k := range a.changedSince(e.startSeq) {
		// Only documents of this edit's servers that nobody edited since:
		// another agent's breakage is not this edit's.
		if k.uri != e.uri && mine[k.server] && !a.editedElsewhere(e, k.uri) {
			changed[k.uri] = true
		}
	}
	uris := make([]string, 0, len(changed))
	for u := range changed {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	var out []messages.FileReport
	for _, u := range uris {
		if len(out) == maxFiles {
			break
		}
		cur, servers, _ := a.mergedWith(u, a.entry)
		base, _, _ := a.mergedWith(u, a.baseline(e))
		added, _, _ := dedup.Delta(dedup.FilterSeverity(base, minSev), dedup.FilterSeverity(cur, minSev))
		if len(added) == 0 {
			continue
		}
		dedup.Sort(added)
		kept, more := dedup.Cap(added, dedup.PerFile)
		out = append(out, messages.FileReport{URI: u, Status: messages.StatusFresh, Diagnostics: kept, More: more, Servers: servers})
	}
	return out
}

// snapshot answers GetDiagnostics from the store without waiting.
func (a *diagnosticsActor) snapshot(m *messages.GetDiagnostics) *messages.DiagnosticsSnapshot {
	minSev := m.MinSeverity
	if minSev == 0 {
		minSev = messages.SeverityError
	}
	out := &messages.DiagnosticsSnapshot{}
	for _, uri := range m.URIs {
		cur, servers, dropped := a.mergedWith(uri, a.entry)
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
	if len(a.byURI[uri]) == 0 {
		return messages.StatusNotReady, "no diagnostics received for this file yet"
	}
	status, detail := messages.StatusFresh, ""
	for k := range a.byURI[uri] {
		v := a.server(k)
		en := a.entry(diagKey{server: k, uri: uri})
		switch {
		case v.broken:
			status, detail = messages.StatusServerBroken, k.ServerID+": "+errText(v.err)
		case v.indexing && status.Rank() < messages.StatusNotReady.Rank():
			status, detail = messages.StatusNotReady, k.ServerID+": indexing"
		case latest(en) < a.versions[diagKey{server: k, uri: uri}] && status == messages.StatusFresh:
			status, detail = messages.StatusStale, k.ServerID+": diagnostics describe an older version"
		}
	}
	return status, detail
}

// latest is the newest version an entry describes.
func latest(e diagEntry) int32 {
	var v int32
	if e.push != nil && e.push.hasVersion {
		v = e.push.version
	}
	if e.pull != nil && e.pull.version > v {
		v = e.pull.version
	}
	return v
}
