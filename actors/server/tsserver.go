package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Diagnostics pulled from tsserver (config.PullTSServer).
// typescript-language-server only pushes, and publishes nothing when a
// file's diagnostics go from none to none: an edit that kept a file clean
// had nothing to wait for but its timeout, and came back stale. tsserver
// answers for a file's current text when asked: its syntactic, semantic and
// suggestion diagnostics, three providers of the pull scheduler, asked
// through the server's typescript.tsserverRequest command. Its pushes are
// then dropped: one without a version cannot be placed against a pull, and
// the pulls say everything they did.

// tsserverCommand is typescript-language-server's pass-through to tsserver.
const tsserverCommand = "typescript.tsserverRequest"

// tsserverKinds are the pull identifiers: tsserver's <kind>DiagnosticsSync
// requests. Every kind depends on other files.
var tsserverKinds = []string{"syntactic", "semantic", "suggestion"}

// usesTSServerPull reports whether the definition asks for tsserver pulls
// and the server offers the command that makes them.
func usesTSServerPull(s *config.Server, caps serverCaps) bool {
	return s.DiagnosticsPull == config.PullTSServer && slices.Contains(caps.commands, tsserverCommand)
}

// tsserverProviders are the pull providers in tsserver mode.
func tsserverProviders() []pulls.Provider {
	out := make([]pulls.Provider, len(tsserverKinds))
	for i, k := range tsserverKinds {
		out[i] = pulls.Provider{Identifier: k, InterFile: true}
	}
	return out
}

// tsserverPull is the executeCommand of one pull request.
func tsserverPull(r *pulls.Request) (string, any) {
	return "workspace/executeCommand", map[string]any{
		"command":   tsserverCommand,
		"arguments": []any{r.Identifier + "DiagnosticsSync", map[string]any{"file": paths.FromURI(r.URI)}},
	}
}

// tsLocation is a tsserver position: 1-based line, 1-based offset in
// UTF-16 code units.
type tsLocation struct {
	Line   uint32 `json:"line"`
	Offset uint32 `json:"offset"`
}

func (l tsLocation) position() messages.Position {
	return messages.Position{Line: max(l.Line, 1) - 1, Character: max(l.Offset, 1) - 1}
}

// parseTSServerReport reads a tsserver response to a <kind>DiagnosticsSync
// request, as typescript-language-server converts its diagnostics for a
// push: category error, warning, suggestion (a hint; any other: an error),
// the code, source "typescript" unless tsserver names one.
func parseTSServerReport(raw json.RawMessage) (pulls.Report, error) {
	var r struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
		Body    []struct {
			Start    tsLocation      `json:"start"`
			End      tsLocation      `json:"end"`
			Text     string          `json:"text"`
			Code     json.RawMessage `json:"code"`
			Category string          `json:"category"`
			Source   string          `json:"source"`
		} `json:"body"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return pulls.Report{}, err
	}
	if !r.Success {
		return pulls.Report{}, fmt.Errorf("tsserver: %s", r.Message)
	}
	items := make([]messages.Diagnostic, 0, len(r.Body))
	for _, d := range r.Body {
		sev := messages.SeverityError
		switch d.Category {
		case "warning":
			sev = messages.SeverityWarning
		case "suggestion":
			sev = messages.SeverityHint
		}
		source := d.Source
		if source == "" {
			source = "typescript"
		}
		items = append(items, messages.Diagnostic{Range: messages.Range{Start: d.Start.position(), End: d.End.position()},
			Severity: sev, Code: codeText(d.Code), Source: source, Message: d.Text})
	}
	return pulls.Report{Kind: "full", Items: items}, nil
}
