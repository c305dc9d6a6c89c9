package dedup

import "github.com/agentlsp/agentlsp/messages"

// Key identifies a diagnostic for deduplication: two diagnostics with equal
// Keys are the same diagnostic. It is comparable, so it can key a map.
type Key struct {
	Message  string
	Severity messages.Severity
	Range    messages.Range
	Source   string
	Code     string
}

// KeyOf returns the Key of d. It does not normalize: a severity of 0 and a
// severity of 1 give different Keys, as a server reports a diagnostic the
// same way each time.
func KeyOf(d messages.Diagnostic) Key {
	return Key{
		Message:  d.Message,
		Severity: d.Severity,
		Range:    d.Range,
		Source:   d.Source,
		Code:     d.Code,
	}
}

// Union returns a followed by the diagnostics of b not in a (nor earlier
// in b), in a new slice unless b is empty (then a itself).
func Union(a, b []messages.Diagnostic) []messages.Diagnostic {
	if len(b) == 0 {
		return a
	}
	out := make([]messages.Diagnostic, len(a), len(a)+len(b))
	copy(out, a)
	if len(a)+len(b) <= SmallSet { // no map: a document's few diagnostics
		for _, d := range b {
			if !Contains(out, d) {
				out = append(out, d)
			}
		}
		return out
	}
	seen := make(map[Key]bool, len(a))
	for _, d := range a {
		seen[KeyOf(d)] = true
	}
	for _, d := range b {
		if k := KeyOf(d); !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}
