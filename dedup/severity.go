package dedup

import (
	"cmp"
	"slices"

	"github.com/agentlsp/agentlsp/messages"
)

// rank normalizes a severity for ordering and filtering: 0 (unspecified)
// and anything below counts as an error, anything above hint as a hint.
func rank(s messages.Severity) messages.Severity {
	switch {
	case s < messages.SeverityError:
		return messages.SeverityError
	case s > messages.SeverityHint:
		return messages.SeverityHint
	}
	return s
}

// FilterSeverity returns, in a new slice, the diagnostics of ds at least as
// severe as min: those whose severity is numerically <= min, so
// min == SeverityError keeps only errors and min == SeverityHint keeps all.
// A severity of 0 (unspecified) counts as an error, in the diagnostics and
// in min.
func FilterSeverity(ds []messages.Diagnostic, min messages.Severity) []messages.Diagnostic {
	min = rank(min)
	var kept []messages.Diagnostic
	for _, d := range ds {
		if rank(d.Severity) <= min {
			kept = append(kept, d)
		}
	}
	return kept
}

// Sort sorts ds in place, stably: errors first, then warnings, infos and
// hints (an unspecified severity counts as an error), then by start line,
// start character and message.
func Sort(ds []messages.Diagnostic) {
	slices.SortStableFunc(ds, compare)
}

// compare orders two diagnostics as Sort does.
func compare(a, b messages.Diagnostic) int {
	return cmp.Or(
		cmp.Compare(rank(a.Severity), rank(b.Severity)),
		cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
		cmp.Compare(a.Range.Start.Character, b.Range.Start.Character),
		cmp.Compare(a.Message, b.Message),
	)
}
