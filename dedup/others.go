package dedup

import "github.com/agentlsp/agentlsp/messages"

// AppendOthers appends to the named files' reports the other files of
// their answers (others[i] for named[i]'s call), each once, none that was
// named, at most max (0: OtherFiles; negative: none): first those only
// the named files' changes could have broken (no ChangedBy), then the
// others. Session.Diagnostics and agentlsp check merge their answers so.
func AppendOthers(named []messages.FileReport, others [][]messages.FileReport, max int) []messages.FileReport {
	if max < 0 {
		return named
	}
	if max == 0 {
		max = OtherFiles
	}
	seen := make(map[string]bool, len(named))
	for _, f := range named {
		seen[f.URI] = true
	}
	n := 0
	for _, changedElsewhere := range []bool{false, true} {
		for _, fs := range others {
			for _, f := range fs {
				if n == max {
					return named
				}
				if !seen[f.URI] && (len(f.ChangedBy) > 0) == changedElsewhere {
					seen[f.URI] = true
					named = append(named, f)
					n++
				}
			}
		}
	}
	return named
}
