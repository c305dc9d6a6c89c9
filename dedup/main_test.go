package dedup

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/agentlsp/agentlsp/messages"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Severity shorthands for the tables.
const (
	sevNone  messages.Severity = 0
	sevError                   = messages.SeverityError
	sevWarn                    = messages.SeverityWarning
	sevInfo                    = messages.SeverityInfo
	sevHint                    = messages.SeverityHint
)

// diag returns a diagnostic at the zero-based line and character with no
// source and no code.
func diag(sev messages.Severity, line, char uint32, msg string) messages.Diagnostic {
	pos := messages.Position{Line: line, Character: char}
	return messages.Diagnostic{
		Range:    messages.Range{Start: pos, End: pos},
		Severity: sev,
		Message:  msg,
	}
}

// diags returns n diagnostics of one severity on lines 0..n-1 with the
// given message prefix.
func diags(sev messages.Severity, n int, prefix string) []messages.Diagnostic {
	var ds []messages.Diagnostic
	for i := range n {
		ds = append(ds, diag(sev, uint32(i), 0, prefix))
	}
	return ds
}

// concat returns the concatenation of parts in a new slice.
func concat(parts ...[]messages.Diagnostic) []messages.Diagnostic {
	var ds []messages.Diagnostic
	for _, p := range parts {
		ds = append(ds, p...)
	}
	return ds
}
