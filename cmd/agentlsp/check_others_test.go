package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// TestCheckOtherFilesSayWhatChanged: the other files of a check are
// listed once each, those only the checked files could have broken first,
// and one that something else may have broken says so, in --json
// (changedBy) and on stderr.
func TestCheckOtherFilesSayWhatChanged(t *testing.T) {
	ws := t.TempDir()
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	report := func(rel string, other bool, changedBy ...string) messages.FileReport {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		return messages.FileReport{Path: p, URI: paths.URI(p), Status: messages.StatusFresh, Other: other, ChangedBy: changedBy}
	}
	theirs := report("theirs.go", true, "a change on disk to theirs.go")
	own := report("own.go", true)
	results := appendOtherFiles([]fileResult{
		{arg: "a.go", report: report("a.go", false), others: []messages.FileReport{theirs, own}},
		{arg: "b.go", report: report("b.go", false), others: []messages.FileReport{own, report("a.go", true)}},
	})
	var got []string
	for _, r := range results {
		got = append(got, filepath.Base(r.report.Path))
	}
	if want := []string{"a.go", "b.go", "own.go", "theirs.go"}; !cmp.Equal(got, want) {
		t.Errorf("files %q, want %q: each once, none named, own.go before theirs.go", got, want)
	}

	ed := rt.Editor()
	var out strings.Builder
	if err := printCheckJSON(&out, ed, results); err != nil {
		t.Fatal(err)
	}
	if want := `"changedBy": [
        "a change on disk to theirs.go"
      ]`; !strings.Contains(out.String(), want) || strings.Count(out.String(), `"changedBy"`) != 1 {
		t.Errorf("check --json:\n%s\nwant changedBy once, for theirs.go: %s", out.String(), want)
	}
	var notices strings.Builder
	printNotices(&notices, ed, results)
	if want := "agentlsp: theirs.go may have been broken otherwise: a change on disk to theirs.go\n"; notices.String() != want {
		t.Errorf("notices %q, want %q", notices.String(), want)
	}
}
