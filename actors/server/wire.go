package server

import (
	"encoding/json"

	"github.com/agentlsp/agentlsp/messages"
)

// wireDiagnostic is an LSP diagnostic as servers send it.
type wireDiagnostic struct {
	Range    messages.Range  `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

func (w *wireDiagnostic) value() messages.Diagnostic {
	return messages.Diagnostic{
		Range:    w.Range,
		Severity: messages.Severity(w.Severity),
		Code:     codeText(w.Code),
		Source:   w.Source,
		Message:  w.Message,
	}
}

// codeText renders a diagnostic code (number or string) as text.
func codeText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return string(raw)
}

// diagnosticsOf converts wire diagnostics; never nil.
func diagnosticsOf(ws []wireDiagnostic) []messages.Diagnostic {
	out := make([]messages.Diagnostic, len(ws))
	for i := range ws {
		out[i] = ws[i].value()
	}
	return out
}
