package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
)

// TestMergeCallsDropsRepeatedSites: the same site listed twice in one
// call, and the same caller in two entries (as pyright and
// typescript-language-server answer), make one call with each site once;
// sites that differ stay.
func TestMergeCallsDropsRepeatedSites(t *testing.T) {
	site := func(line, col int) agentlsp.EditorLocation {
		return agentlsp.EditorLocation{Path: "app.py", Line: line, Column: col, EndLine: line, EndColumn: col + 3}
	}
	main := CallItem{Name: "main", Kind: "function", Location: site(1, 5)}
	helper := CallItem{Name: "helper", Kind: "function", Location: site(9, 5)}
	add := CallItem{Name: "add", Kind: "method", Location: site(20, 9)}
	got := mergeCalls([]Call{
		{From: main, To: add, Sites: []agentlsp.EditorLocation{site(3, 4), site(3, 4)}},
		{From: helper, To: add, Sites: []agentlsp.EditorLocation{site(11, 4)}},
		{From: main, To: add, Sites: []agentlsp.EditorLocation{site(4, 4), site(3, 4)}},
	})
	want := []Call{
		{From: main, To: add, Sites: []agentlsp.EditorLocation{site(3, 4), site(4, 4)}},
		{From: helper, To: add, Sites: []agentlsp.EditorLocation{site(11, 4)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged calls (-want +got):\n%s", diff)
	}
}
