package dedup

import (
	"slices"

	"github.com/agentlsp/agentlsp/messages"
)

// AppendOthers appends to the named files' reports the other files of
// their answers (others[i] for named[i]'s call), each once, none that was
// named, at most max (0: OtherFiles; negative: none): first those only
// the named files' changes could have broken (no ChangedBy), then the
// others. Session.Diagnostics and agentlsp check merge their answers so.
//
// The other files left out, past max or past the cap of their own
// answer (named[i].MoreFiles), are named in the MoreFiles of the named
// report whose answer had them, each once in all, none shown; with a
// negative max every MoreFiles is cleared. AppendOthers sets those fields
// in named's elements.
func AppendOthers(named []messages.FileReport, others [][]messages.FileReport, max int) []messages.FileReport {
	if max < 0 {
		for i := range named {
			named[i].MoreFiles = nil
		}
		return named
	}
	if max == 0 {
		max = OtherFiles
	}
	n := len(named)
	seen := make(map[string]bool, n)
	for _, f := range named {
		seen[f.URI] = true
	}
	for _, changedElsewhere := range []bool{false, true} {
		for _, fs := range others {
			for _, f := range fs {
				if len(named)-n < max && !seen[f.URI] && (len(f.ChangedBy) > 0) == changedElsewhere {
					seen[f.URI] = true
					named = append(named, f)
				}
			}
		}
	}
	for i := range n {
		var left []string
		if i < len(others) {
			for _, f := range others[i] {
				left = append(left, f.URI)
			}
		}
		named[i].MoreFiles = unshown(append(left, named[i].MoreFiles...), seen)
	}
	return named
}

// unshown returns the URIs of uris not in seen, sorted, each once, and
// marks them seen.
func unshown(uris []string, seen map[string]bool) []string {
	var out []string
	for _, u := range uris {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// MoreFiles returns the other files an answer left out (the MoreFiles of
// its reports), sorted, each once, none of those the reports are about.
func MoreFiles(reports []messages.FileReport) []string {
	seen := make(map[string]bool, len(reports))
	var all []string
	for _, f := range reports {
		seen[f.URI] = true
		all = append(all, f.MoreFiles...)
	}
	return unshown(all, seen)
}
