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
