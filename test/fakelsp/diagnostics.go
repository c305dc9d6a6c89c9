package fakelsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// diagnostic is an LSP Diagnostic.
type diagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity"`
	Code     string   `json:"code"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
}

// marker is a word in the text that yields a diagnostic.
type marker struct {
	word     string
	severity int
	code     string
	source   string
}

var markers = []marker{
	{word: "ERROR:", severity: 1, code: "E1", source: "fake"},
	{word: "WARN:", severity: 2, code: "W1", source: "fake"},
	{word: "SYNTAX:", severity: 1, code: "S1", source: "fake-syntax"},
}

// computeDiagnostics finds the markers of text: one diagnostic per marker
// per line, from the marker to the end of the line, ordered by position.
func computeDiagnostics(text string, utf8 bool) []diagnostic {
	diags := []diagnostic{}
	forEachLine(text, func(n int, line string) {
		type hit struct {
			at   int
			diag diagnostic
		}
		var hits []hit
		for _, m := range markers {
			i := strings.Index(line, m.word)
			if i < 0 {
				continue
			}
			hits = append(hits, hit{at: i, diag: diagnostic{
				Range: lspRange{
					Start: position{Line: n, Character: columnOf(line, i, utf8)},
					End:   position{Line: n, Character: columnOf(line, len(line), utf8)},
				},
				Severity: m.severity, Code: m.code, Source: m.source,
				Message: strings.TrimSpace(line[i+len(m.word):]),
			}})
		}
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.at, b.at) })
		for _, h := range hits {
			diags = append(diags, h.diag)
		}
	})
	return diags
}

// diagnose is computeDiagnostics of text with the configuration's error
// first (--config-file).
func (s *server) diagnose(text string) []diagnostic {
	diags := computeDiagnostics(text, s.utf8)
	if s.cfg.configText == "" {
		return diags
	}
	line := text[:lineEnd(text, 0)]
	cfg := diagnostic{
		Range:    lspRange{End: position{Character: columnOf(line, len(line), s.utf8)}},
		Severity: 1, Code: "CFG", Source: "fake-config", Message: "config: " + s.cfg.configText,
	}
	return append([]diagnostic{cfg}, diags...)
}

// forEachLine calls f with each line of text and its number, without the
// line terminator.
func forEachLine(text string, f func(n int, line string)) {
	start := 0
	for n := 0; ; n++ {
		f(n, text[start:lineEnd(text, start)])
		next, ok := nextLine(text, start)
		if !ok {
			return
		}
		start = next
	}
}

// floodDiagnostics is --flood: n distinct errors spread over the lines.
func floodDiagnostics(text string, n int, utf8 bool) []diagnostic {
	var lines []string
	forEachLine(text, func(_ int, line string) { lines = append(lines, line) })
	diags := make([]diagnostic, 0, n)
	for i := range n {
		l := i % len(lines)
		diags = append(diags, diagnostic{
			Range: lspRange{
				Start: position{Line: l},
				End:   position{Line: l, Character: columnOf(lines[l], len(lines[l]), utf8)},
			},
			Severity: 1, Code: "E1", Source: "fake", Message: fmt.Sprintf("flood %d", i),
		})
	}
	return diags
}

// publish pushes the diagnostics of d as the flags say: nothing with
// --no-push, a flood on open with --flood, two phases with --phased.
func (s *server) publish(d *document, opened bool) {
	if s.cfg.noPush {
		return
	}
	if opened && s.cfg.flood > 0 {
		s.push(d, floodDiagnostics(d.text, s.cfg.flood, s.utf8), 0)
		return
	}
	all := s.diagnose(d.text)
	if s.cfg.diagnosing {
		s.publishDiagnosing(s.pushBody(d, all))
		return
	}
	if s.cfg.phased <= 0 {
		s.push(d, all, 0)
		return
	}
	syntax := []diagnostic{}
	for _, diag := range all {
		if diag.Source == "fake-syntax" {
			syntax = append(syntax, diag)
		}
	}
	s.push(d, syntax, 0)
	s.push(d, all, s.cfg.phased)
}

// publishParams is PublishDiagnosticsParams.
type publishParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

// push publishes diags for d now, or after --push-delay plus extra. The
// message is built now, so later edits do not change it.
func (s *server) push(d *document, diags []diagnostic, extra time.Duration) {
	body := s.pushBody(d, diags)
	if delay := s.cfg.pushDelay + extra; delay > 0 {
		s.sched.after(delay, func() { s.write(body) })
		return
	}
	s.write(body)
}

// pushBody is the publication of diags for d as it is now.
func (s *server) pushBody(d *document, diags []diagnostic) []byte {
	p := publishParams{URI: d.uri, Diagnostics: diags}
	if !s.cfg.noVersion {
		v := d.version
		p.Version = &v
	}
	return mustJSON(&message{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics", Params: mustJSON(&p)})
}

// publishDiagnosing (--diagnosing) publishes body inside a work done
// progress titled as gopls's diagnoses are: a token is created, the
// progress begins, and after --push-delay the publication goes out and
// the progress ends.
func (s *server) publishDiagnosing(body []byte) {
	s.diagnoses++
	token := "fake-diagnosis-" + strconv.Itoa(s.diagnoses)
	s.call(s.internalID(), "window/workDoneProgress/create", map[string]any{"token": token}, func(resp *message) {
		if len(resp.Error) > 0 {
			s.log.printf("fakelsp: client refused progress token: %s", resp.Error)
			s.write(body)
			return
		}
		s.notify("$/progress", map[string]any{
			"token": token, "value": map[string]any{"kind": "begin", "title": "diagnosing changed files"},
		})
		s.sched.after(s.cfg.pushDelay, func() {
			s.write(body)
			s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end"}})
		})
	})
}

// pullDiagnostics answers textDocument/diagnostic.
func (s *server) pullDiagnostics(r *request) {
	var p struct {
		PreviousResultID string `json:"previousResultId"`
	}
	uri, err := paramURI(r.params)
	if err == nil {
		err = json.Unmarshal(r.params, &p)
	}
	if err != nil {
		s.reply(r, nil, &rpcError{Code: codeInvalidParams, Message: err.Error()})
		return
	}
	d, ok := s.docs[uri]
	if !ok {
		s.reply(r, nil, &rpcError{Code: codeInvalidParams, Message: "document not open: " + uri})
		return
	}
	id := fmt.Sprintf("v%d", d.version)
	if p.PreviousResultID == id {
		s.reply(r, map[string]any{"kind": "unchanged", "resultId": id}, nil)
		return
	}
	items := s.diagnose(d.text)
	if s.cfg.emptyInWork && s.working.Load() {
		items, id = []diagnostic{}, "loading" // as rust-analyzer answers before its workspace is loaded
	}
	s.reply(r, map[string]any{"kind": "full", "resultId": id, "items": items}, nil)
}
