package diagnostics

import (
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/messages"
)

// Files first checked in an answer's window. pyright and tsserver
// diagnose open files only, and the router opens a changed file's
// importers just before the change (router/importers.go): the first
// diagnosis of such a file has nothing before it, so its errors are new
// to the runtime, not made by the change. Reported, they say so: the
// file goes among those other changes may have broken, with the reason
// firstChecked, never as the edit's.

// firstChecked is the reason given for a file's errors when the file was
// first diagnosed in the window.
const firstChecked = "first checked now (its server checks open files only): its errors may predate this change"

// noteOpened records when a document was opened on a server that
// diagnoses open files only, and forgets it when it is closed.
func (a *diagnosticsActor) noteOpened(k store.Key, m *messages.DocumentSent) {
	if m.OpenOnly {
		a.server(k.Server).openOnly = true
	}
	switch _, known := a.opened[k]; {
	case m.Closed:
		delete(a.opened, k)
	case known || !m.OpenOnly:
	default:
		if len(a.opened) >= maxVersions {
			clear(a.opened)
		}
		a.opened[k] = a.now()
	}
}

// uncheckedAt reports whether, as the store was at seq, a server of uri
// that diagnoses open files only had not diagnosed uri since it last
// opened it.
func (a *diagnosticsActor) uncheckedAt(uri string, seq uint64) bool {
	for _, sv := range a.store.Servers(uri) {
		k := store.Key{Server: sv, URI: uri}
		opened, ok := a.opened[k]
		if !ok || !a.server(sv).openOnly {
			continue
		}
		if t := diagnosedAt(a.store.At(k, seq)); t.IsZero() || t.Before(opened) {
			return true
		}
	}
	return false
}

// withFirstChecked puts firstChecked before why when the file was
// unchecked (uncheckedAt).
func withFirstChecked(unchecked bool, why []string) []string {
	if !unchecked {
		return why
	}
	return append([]string{firstChecked}, why...)
}
