package fakelsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const uriA = "file:///a.go"

// open sends didOpen for uriA.
func (c *testClient) open(version int, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uriA, "languageId": "go", "version": version, "text": text,
	}})
}

// awaitPush awaits the next publishDiagnostics and decodes it.
func (c *testClient) awaitPush() publishParams {
	c.t.Helper()
	var p publishParams
	c.decode(c.awaitMethod("textDocument/publishDiagnostics").Params, &p)
	return p
}

// diag builds an expected diagnostic on one line.
func diag(line, from, to int, code, message string) diagnostic {
	d := diagnostic{
		Range:    lspRange{Start: position{line, from}, End: position{line, to}},
		Severity: 1, Code: code, Source: "fake", Message: message,
	}
	switch code {
	case "W1":
		d.Severity = 2
	case "S1":
		d.Source = "fake-syntax"
	}
	return d
}

func versionOf(v int) *int { return &v }

func TestDiagnosticsOnOpen(t *testing.T) {
	c := start(t)
	c.initialize()
	c.open(3, "package a\n\nfunc f() {} // ERROR: boom\n")
	want := publishParams{URI: uriA, Version: versionOf(3), Diagnostics: []diagnostic{diag(2, 15, 26, "E1", "boom")}}
	if diff := cmp.Diff(want, c.awaitPush()); diff != "" {
		t.Errorf("publishDiagnostics (-want +got):\n%s", diff)
	}
	c.call("fake/documentText", map[string]any{"uri": uriA}) // a round trip: any later push is now in
	if n := c.count("textDocument/publishDiagnostics"); n != 0 {
		t.Errorf("got %d more pushes after didOpen, want 0", n)
	}
	c.shutdownExit()
}

func TestComputeDiagnostics(t *testing.T) {
	text := "a WARN:  w  SYNTAX: s ERROR: e\r\nplain\rERROR:\n"
	want := []diagnostic{
		diag(0, 2, 30, "W1", "w  SYNTAX: s ERROR: e"),
		diag(0, 12, 30, "S1", "s ERROR: e"),
		diag(0, 22, 30, "E1", "e"),
		diag(2, 0, 6, "E1", ""),
	}
	if diff := cmp.Diff(want, computeDiagnostics(text, false)); diff != "" {
		t.Errorf("computeDiagnostics(%q) (-want +got):\n%s", text, diff)
	}
}

func TestPhased(t *testing.T) {
	c := start(t, "--phased", "5ms")
	c.initialize()
	c.open(1, "SYNTAX: bad\nERROR: boom\n")
	syntax := diag(0, 0, 11, "S1", "bad")
	phases := [][]diagnostic{{syntax}, {syntax, diag(1, 0, 11, "E1", "boom")}}
	for i, diags := range phases {
		want := publishParams{URI: uriA, Version: versionOf(1), Diagnostics: diags}
		if diff := cmp.Diff(want, c.awaitPush()); diff != "" {
			t.Errorf("push %d (-want +got):\n%s", i, diff)
		}
	}
	c.shutdownExit()
}

func TestNoVersionDelayedAndFlood(t *testing.T) {
	c := start(t, "--no-version", "--push-delay", "1ms", "--flood", "3")
	c.initialize()
	c.open(1, "one\ntwo")
	want := publishParams{URI: uriA, Diagnostics: []diagnostic{
		diag(0, 0, 3, "E1", "flood 0"), diag(1, 0, 3, "E1", "flood 1"), diag(0, 0, 3, "E1", "flood 2"),
	}}
	if diff := cmp.Diff(want, c.awaitPush()); diff != "" {
		t.Errorf("flood push (-want +got):\n%s", diff)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uriA, "version": 2},
		"contentChanges": []any{map[string]any{"text": "WARN: w"}},
	})
	want = publishParams{URI: uriA, Diagnostics: []diagnostic{diag(0, 0, 7, "W1", "w")}}
	if diff := cmp.Diff(want, c.awaitPush()); diff != "" {
		t.Errorf("push after change (-want +got):\n%s", diff)
	}
	c.shutdownExit()
}

func TestNoPush(t *testing.T) {
	c := start(t, "--no-push")
	c.initialize()
	c.open(1, "ERROR: e")
	c.call("fake/documentText", map[string]any{"uri": uriA})
	if n := c.count("textDocument/publishDiagnostics"); n != 0 {
		t.Errorf("got %d pushes with --no-push, want 0", n)
	}
	c.shutdownExit()
}

func TestPullDiagnostics(t *testing.T) {
	c := start(t, "--pull", "--no-push")
	c.initialize()
	c.open(1, "ERROR: boom")
	pull := func(previous string) (got map[string]any) {
		params := map[string]any{"textDocument": map[string]any{"uri": uriA}, "identifier": "fake"}
		if previous != "" {
			params["previousResultId"] = previous
		}
		c.decode(c.call("textDocument/diagnostic", params).Result, &got)
		return got
	}
	items := func(message string) []any {
		return []any{map[string]any{
			"range": map[string]any{
				"start": map[string]any{"line": 0.0, "character": 0.0},
				"end":   map[string]any{"line": 0.0, "character": float64(7 + len(message))},
			},
			"severity": 1.0, "code": "E1", "source": "fake", "message": message,
		}}
	}
	steps := []struct {
		previous string
		want     map[string]any
	}{
		{"", map[string]any{"kind": "full", "resultId": "v1", "items": items("boom")}},
		{"v1", map[string]any{"kind": "unchanged", "resultId": "v1"}},
	}
	for i, step := range steps {
		if diff := cmp.Diff(step.want, pull(step.previous)); diff != "" {
			t.Errorf("pull %d (-want +got):\n%s", i, diff)
		}
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uriA, "version": 2},
		"contentChanges": []any{map[string]any{"text": "ERROR: bang"}},
	})
	want := map[string]any{"kind": "full", "resultId": "v2", "items": items("bang")}
	if diff := cmp.Diff(want, pull("v1")); diff != "" {
		t.Errorf("pull after change (-want +got):\n%s", diff)
	}
	c.shutdownExit()
}

// TestDiagnosing: with --diagnosing, a publication comes inside a
// "diagnosing changed files" work done progress on a token of its own:
// create, begin, the publication, end, in that order.
func TestDiagnosing(t *testing.T) {
	c := start(t, "--diagnosing")
	c.initialize()
	c.open(3, "package a\n\nfunc f() {} // ERROR: boom\n")
	create := c.awaitMethod("window/workDoneProgress/create")
	if string(create.Params) != `{"token":"fake-diagnosis-1"}` {
		t.Errorf("create params = %s", create.Params)
	}
	c.reply(create.ID, nil)
	next := func() *message {
		return c.await("progress or publication", func(m *message) bool {
			return m.Method == "$/progress" || m.Method == "textDocument/publishDiagnostics"
		})
	}
	type progress struct {
		Token string
		Value struct{ Kind, Title string }
	}
	var begin, end progress
	_ = json.Unmarshal(next().Params, &begin)
	if begin.Token != "fake-diagnosis-1" || begin.Value.Kind != "begin" || begin.Value.Title != "diagnosing changed files" {
		t.Errorf("first message %+v, want the diagnosis's begin", begin)
	}
	push := next()
	var got publishParams
	_ = json.Unmarshal(push.Params, &got)
	want := publishParams{URI: uriA, Version: versionOf(3), Diagnostics: []diagnostic{diag(2, 15, 26, "E1", "boom")}}
	if diff := cmp.Diff(want, got); push.Method != "textDocument/publishDiagnostics" || diff != "" {
		t.Errorf("second message %s, want the publication (-want +got):\n%s", push.Method, diff)
	}
	_ = json.Unmarshal(next().Params, &end)
	if end.Token != "fake-diagnosis-1" || end.Value.Kind != "end" {
		t.Errorf("third message %+v, want the diagnosis's end", end)
	}
	c.shutdownExit()
}

// TestConfigFileReadOnceAtStart: --config-file's text, read at start,
// heads every document's diagnostics; a change of the file afterwards is
// not read, as pyright never reads a pyrightconfig.json created after it
// started.
func TestConfigFileReadOnceAtStart(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "fake.toml")
	if err := os.WriteFile(cfg, []byte("strict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "--config-file", cfg)
	c.initialize()
	if err := os.WriteFile(cfg, []byte("basic\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.open(1, "ok\nERROR: e")
	want := publishParams{URI: uriA, Version: versionOf(1), Diagnostics: []diagnostic{
		{Range: lspRange{End: position{Character: 2}}, Severity: 1, Code: "CFG", Source: "fake-config", Message: "config: strict"},
		diag(1, 0, 8, "E1", "e"),
	}}
	if diff := cmp.Diff(want, c.awaitPush()); diff != "" {
		t.Errorf("push with --config-file (-want +got):\n%s", diff)
	}
	c.shutdownExit()
}
