package server

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// TestParseTSServerReport reads tsserver's answers to <kind>DiagnosticsSync
// as typescript-language-server 5.3.0 passed them on (recorded), converted
// as that server converts a push; a failed request is an error.
func TestParseTSServerReport(t *testing.T) {
	raw := `{"seq": 0, "type": "response", "command": "semanticDiagnosticsSync", "request_seq": 6, "success": true, "body": [
		{"start": {"line": 3, "offset": 7}, "end": {"line": 3, "offset": 8}, "text": "Type 'number' is not assignable to type 'string'.", "code": 2322, "category": "error"},
		{"start": {"line": 4, "offset": 5}, "end": {"line": 4, "offset": 11}, "text": "'unused' is declared but its value is never read.", "code": 6133, "category": "suggestion", "reportsUnnecessary": true},
		{"start": {"line": 1, "offset": 1}, "end": {"line": 1, "offset": 2}, "text": "w", "code": 1, "category": "warning", "source": "eslint"}]}`
	rep, err := parseTSServerReport(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	at := func(l1, c1, l2, c2 uint32) messages.Range {
		return messages.Range{Start: messages.Position{Line: l1, Character: c1}, End: messages.Position{Line: l2, Character: c2}}
	}
	want := []messages.Diagnostic{
		{Range: at(2, 6, 2, 7), Severity: messages.SeverityError, Code: "2322", Source: "typescript", Message: "Type 'number' is not assignable to type 'string'."},
		{Range: at(3, 4, 3, 10), Severity: messages.SeverityHint, Code: "6133", Source: "typescript", Message: "'unused' is declared but its value is never read."},
		{Range: at(0, 0, 0, 1), Severity: messages.SeverityWarning, Code: "1", Source: "eslint", Message: "w"},
	}
	if diff := cmp.Diff(want, rep.Items); diff != "" || rep.Kind != "full" {
		t.Errorf("kind %q, items (-want +got):\n%s", rep.Kind, diff)
	}
	if _, err := parseTSServerReport(json.RawMessage(`{"success": false, "message": "No Project."}`)); err == nil {
		t.Error("a failed tsserver request parsed as a report")
	}
}

// TestTSServerPullNeedsTheCommand: tsserver mode only where the definition
// asks for it and the server offers the command.
func TestTSServerPullNeedsTheCommand(t *testing.T) {
	ts := &config.Server{DiagnosticsPull: config.PullTSServer}
	for _, c := range []struct {
		s    *config.Server
		cmds []string
		want bool
	}{
		{ts, []string{"_typescript.organizeImports", tsserverCommand}, true},
		{ts, []string{"_typescript.organizeImports"}, false},
		{&config.Server{}, []string{tsserverCommand}, false},
	} {
		if got := usesTSServerPull(c.s, serverCaps{commands: c.cmds}); got != c.want {
			t.Errorf("pull %q, commands %v: %v, want %v", c.s.DiagnosticsPull, c.cmds, got, c.want)
		}
	}
}
