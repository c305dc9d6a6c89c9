package mcp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/editor"
	"github.com/agentlsp/agentlsp/results"
)

// TestUnwatchedFilesAreNamed: an answer whose files lie where the watcher
// does not look (a vendored file) names them, once, in its structured
// content and in a note of its text: a change made there is not seen.
func TestUnwatchedFilesAreNamed(t *testing.T) {
	ws := t.TempDir()
	v := &view{workspace: ws, ed: editor.New(ws, nil), lines: map[string][]string{}}
	file := filepath.Join(ws, "vendor", "example.com", "other", "o.go")
	ans := &results.LocationsAnswer{Answer: results.Answer{Servers: []string{"gopls"}, Unwatched: []string{file}},
		Locations: []results.Location{{Path: file}}}
	out, err := v.locations(OpDefinition, ans, nil)
	if err != nil {
		t.Fatal(err)
	}
	v.merge(&out, results.Answer{Unwatched: []string{file}}) // a second answer of the call (call hierarchy)
	if want := "vendor/example.com/other/o.go"; len(out.Unwatched) != 1 || out.Unwatched[0] != want {
		t.Errorf("Unwatched = %v, want [%s]", out.Unwatched, want)
	}
	text := v.render(out, LSPInput{Operation: OpDefinition})
	if !strings.Contains(text, "note: not watched for changes: vendor/example.com/other/o.go (a change made there") {
		t.Errorf("text says nothing of the unwatched file:\n%s", text)
	}
}
