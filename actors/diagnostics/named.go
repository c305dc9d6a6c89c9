package diagnostics

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/reach"
)

// The files a diagnostics call names, for attribution: what each can
// reach, and how an answer names them.

// unreachableFrom says whether reach rules to out from every file of
// from (false when from is empty or one's reach is not known yet).
func unreachableFrom(from []*edits.Edit, to reach.Target) bool {
	for _, e := range from {
		if e == nil || e.Reach == nil || e.Reach.ReachesTarget(to) != reach.No {
			return false
		}
	}
	return len(from) > 0
}

// baseNames are the base names of the edits' files: "a.go", "a.go and
// b.go", "a.go, b.go and c.go"; past maxNamedShown, "a.go, b.go, c.go and
// 4 more files".
func baseNames(from []*edits.Edit) string {
	var b strings.Builder
	for i, e := range from {
		switch {
		case i == maxNamedShown && len(from) > maxNamedShown+1:
			b.WriteString(" and " + strconv.Itoa(len(from)-i) + " more files")
			return b.String()
		case i == 0:
		case i == len(from)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(filepath.Base(paths.FromURI(e.URI)))
	}
	return b.String()
}

// maxNamedShown bounds the files baseNames names.
const maxNamedShown = 3

// namedEdits are the edits of the files a diagnostics call names: e's,
// and for each other file named (Named) the latest of the session's
// calls' edits of it among over; nil for a file with none (its reach is
// not known, so nothing is ruled out).
func namedEdits(e *edits.Edit, over []*edits.Edit) []*edits.Edit {
	if e.Req == nil || len(e.Req.Named) == 0 {
		return []*edits.Edit{e}
	}
	latest := make(map[string]*edits.Edit, len(e.Req.Named))
	for _, o := range over {
		if l, ok := latest[o.URI]; o.Session == e.Session && o.Current && (!ok || o.Started.After(l.Started)) {
			latest[o.URI] = o
		}
	}
	from := make([]*edits.Edit, 1, 1+len(e.Req.Named))
	from[0] = e
	for _, u := range e.Req.Named {
		from = append(from, latest[u])
	}
	return from
}

// namedSet is the URIs of the files e's call names: its own and Named.
func namedSet(e *edits.Edit) map[string]bool {
	named := map[string]bool{e.URI: true}
	if e.Req != nil {
		for _, u := range e.Req.Named {
			named[u] = true
		}
	}
	return named
}
