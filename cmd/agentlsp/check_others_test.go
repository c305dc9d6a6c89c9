package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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

// TestCheckSaysWhichOtherFilesItLeftOut: a check of main.go in a module
// where 12 other files have errors shows 5 of them and names the other 7,
// on stderr and in --json (moreFiles, moreFilePaths). Before, the 7 were
// left out without a word.
func TestCheckSaysWhichOtherFilesItLeftOut(t *testing.T) {
	files := map[string]string{}
	var all []string
	for i := range 12 {
		name := fmt.Sprintf("f%02d.go", i)
		files[name] = fmt.Sprintf("package main\n\nvar v%d int = Greeting(\"x\")\n", i)
		all = append(all, name)
	}
	ws := goWorkspace(t, files)
	args := []string{"check", "--workspace", ws, "--timeout", "60s", "main.go"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	if n := strings.Count(stdout, "\n"); n != 5 {
		t.Errorf("stdout has %d lines, want the errors of 5 other files:\n%s", n, stdout)
	}
	var shown []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		shown = append(shown, strings.SplitN(line, ":", 2)[0])
	}
	left := slices.DeleteFunc(slices.Clone(all), func(f string) bool { return slices.Contains(shown, f) })
	wantNote := "agentlsp: 7 more files with new errors not shown: " + strings.Join(left, ", ") + "; check them by name\n"
	if stderr != wantNote {
		t.Errorf("stderr %q, want %q", stderr, wantNote)
	}

	args = []string{"check", "--workspace", ws, "--timeout", "60s", "--json", "main.go"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFound, stdout, stderr)
	var doc struct {
		Files         []struct{ Path string }
		MoreFiles     int
		MoreFilePaths []string
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("check --json: %v\n%s", err, stdout)
	}
	var paths []string
	for _, f := range doc.Files {
		paths = append(paths, f.Path)
	}
	paths = append(paths, doc.MoreFilePaths...)
	slices.Sort(paths)
	want := append(slices.Clone(all), "main.go")
	if len(doc.Files) != 6 || doc.MoreFiles != 7 || !cmp.Equal(paths, want) {
		t.Errorf("check --json: %d files, moreFiles %d, files and moreFilePaths %q, want 6, 7 and every file once %q",
			len(doc.Files), doc.MoreFiles, paths, want)
	}
}
