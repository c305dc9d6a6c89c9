package dedup_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

func other(uri string, changedBy ...string) messages.FileReport {
	return messages.FileReport{URI: uri, Other: true, ChangedBy: changedBy}
}

// TestAppendOthers: the other files of several answers are merged once
// each, under the cap; those left out, past the cap or past their own
// answer's, are named once in all, none named or shown.
func TestAppendOthers(t *testing.T) {
	named := []messages.FileReport{
		{URI: "a", MoreFiles: []string{"x", "b", "y"}}, // b is named: not left out
		{URI: "b", MoreFiles: []string{"y", "z"}},
	}
	others := [][]messages.FileReport{
		{other("o1"), other("o2", "a change on disk"), other("o3")},
		{other("o3"), other("a"), other("o4"), other("x")}, // x, left out by a's answer too, is named once
	}
	got := dedup.AppendOthers(named, others, 3)
	var uris []string
	for _, f := range got {
		uris = append(uris, f.URI)
	}
	if want := []string{"a", "b", "o1", "o3", "o4"}; !cmp.Equal(uris, want) {
		t.Errorf("AppendOthers files = %q, want %q", uris, want)
	}
	if want := [][]string{{"o2", "x", "y"}, {"z"}}; !cmp.Equal([][]string{got[0].MoreFiles, got[1].MoreFiles}, want) {
		t.Errorf("MoreFiles = %q, %q, want %q", got[0].MoreFiles, got[1].MoreFiles, want)
	}
	if more, want := dedup.MoreFiles(got), []string{"o2", "x", "y", "z"}; !cmp.Equal(more, want) {
		t.Errorf("MoreFiles(answer) = %q, want %q", more, want)
	}

	// Under a cap of 4, x is shown: b's answer had it.
	named = []messages.FileReport{{URI: "a", MoreFiles: []string{"x", "b", "y"}}, {URI: "b", MoreFiles: []string{"y", "z"}}}
	got = dedup.AppendOthers(named, others, 4)
	if more, want := dedup.MoreFiles(got), []string{"o2", "y", "z"}; len(got) != 6 || !cmp.Equal(more, want) {
		t.Errorf("AppendOthers(max 4): %d files, MoreFiles %q, want 6 and %q", len(got), more, want)
	}

	none := dedup.AppendOthers([]messages.FileReport{{URI: "a", MoreFiles: []string{"x"}}}, others[:1], -1)
	if len(none) != 1 || none[0].MoreFiles != nil {
		t.Errorf("AppendOthers(max -1) = %+v, want a alone, no file named as left out", none)
	}
}

func TestMoreFilesNote(t *testing.T) {
	many := make([]string, 12)
	for i := range many {
		many[i] = string(rune('a'+i)) + ".go"
	}
	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, ""},
		{[]string{"a.go"}, "... and 1 more file with new errors: a.go; ask about it by name"},
		{[]string{"a.go", "b.go"}, "... and 2 more files with new errors: a.go, b.go; ask about them by name"},
		{many, "... and 12 more files with new errors: a.go, b.go, c.go, d.go, e.go, f.go, g.go, h.go, i.go, j.go " +
			"and 2 others; ask about them by name"},
	} {
		if got := dedup.MoreFilesNote(tc.paths); got != tc.want {
			t.Errorf("MoreFilesNote(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
}
