package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// broken has a type error after non-ASCII text on its line: the column
// counts characters.
const broken = `package gonav

// Broken does not compile.
func Broken() int {
	var s string = "héllo 😀"; return s
}
`

// TestDiagnosticsTypeError: a file with a type error gives the exact model
// format text, status fresh, and the same as structured content.
func TestDiagnosticsTypeError(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	if err := os.WriteFile(filepath.Join(c.ws, "broken.go"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var out mcp.DiagnosticsOutput
	text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"broken.go", "total.go"}}, &out)
	msg := "cannot use s (variable of type string) as int value in return statement"
	wantText := "<diagnostics file=\"broken.go\" status=\"fresh\">\n" +
		"ERROR [5:35] " + msg + " (compiler/IncompatibleAssign)\n" +
		"</diagnostics>\n" +
		"<diagnostics file=\"total.go\" status=\"fresh\">\n" +
		"</diagnostics>\n"
	if text != wantText {
		t.Errorf("diagnostics text =\n%s\nwant\n%s", text, wantText)
	}
	want := mcp.DiagnosticsOutput{Files: []mcp.FileDiagnostics{
		{Path: "broken.go", Status: "fresh", Servers: []string{"gopls"}, Diagnostics: []mcp.Diagnostic{{
			Severity: "error", Line: 5, Column: 35, EndLine: 5, EndColumn: 36, Message: msg,
			Source: "compiler", Code: "IncompatibleAssign"}}},
		{Path: "total.go", Status: "fresh", Servers: []string{"gopls"}, Diagnostics: []mcp.Diagnostic{}},
	}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("diagnostics structured content mismatch (-want +got):\n%s", diff)
	}
}

// TestDiagnosticsNamesEachFileOnce: one file named several ways (relative,
// ./, absolute, through a link to its directory) is answered once.
func TestDiagnosticsNamesEachFileOnce(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	if err := os.WriteFile(filepath.Join(c.ws, "broken.go"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(c.ws, "here")); err != nil {
		t.Fatal(err)
	}
	var out mcp.DiagnosticsOutput
	c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"broken.go", "./broken.go",
		filepath.Join(c.ws, "broken.go"), "here/broken.go"}}, &out)
	if len(out.Files) != 1 || out.Files[0].Path != "broken.go" || len(out.Files[0].Diagnostics) != 1 {
		t.Errorf("files = %+v; want broken.go once, with its error", out.Files)
	}
}

// TestDiagnosticsSkipsFilesItCannotCheck: a file deleted or outside the
// workspace among those asked for is named with its problem, and the
// others are checked all the same.
func TestDiagnosticsSkipsFilesItCannotCheck(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	if err := os.WriteFile(filepath.Join(c.ws, "broken.go"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var out mcp.DiagnosticsOutput
	text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"gone.go", "broken.go", "../x.go"}}, &out)
	if len(out.Files) != 1 || out.Files[0].Path != "broken.go" || out.Files[0].Status != "fresh" || len(out.Files[0].Diagnostics) != 1 {
		t.Errorf("files = %+v, want broken.go fresh with its error", out.Files)
	}
	if len(out.Skipped) != 2 || !strings.Contains(out.Skipped[0], "file does not exist: gone.go") ||
		!strings.Contains(out.Skipped[1], "path outside the workspace: ../x.go") {
		t.Errorf("skipped = %q, want gone.go and ../x.go with their problems", out.Skipped)
	}
	for _, want := range []string{"ERROR [5:35]", "note: not checked: ", "gone.go", "../x.go"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestDiagnosticsNoWait: without waiting, the answer comes at once, and
// its status never claims that old diagnostics are current: fresh only when
// they describe the file on disk, else a status with its reason.
func TestDiagnosticsNoWait(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	path := filepath.Join(c.ws, "broken.go")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	noWait := false
	// check calls the tool; errors is how many errors the file on disk has,
	// canBeFresh whether the server may have answered within the call.
	check := func(step string, wait *bool, errors int, canBeFresh bool) {
		t.Helper()
		var out mcp.DiagnosticsOutput
		text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"broken.go"}, Wait: wait}, &out)
		f := out.Files[0]
		switch {
		case f.Status == "fresh" && (!canBeFresh || f.Detail != "" || len(f.Diagnostics) != errors):
			t.Errorf("%s: diagnostics = %+v, want %d errors if fresh at all; text:\n%s", step, f, errors, text)
		case f.Status != "fresh" && wait == nil:
			t.Errorf("%s: status %s (%s) after waiting, want fresh", step, f.Status, f.Detail)
		case f.Status != "fresh" && (f.Detail == "" || !strings.Contains(text, "note: broken.go is "+f.Status+": ")):
			t.Errorf("%s: status %s without a reason: %+v; text:\n%s", step, f.Status, f, text)
		}
	}
	check("first, no wait", &noWait, 1, false) // the server has only just been started
	check("wait", nil, 1, true)
	check("unchanged, no wait", &noWait, 1, true)
	if err := os.WriteFile(path, []byte("package gonav\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("changed on disk, no wait", &noWait, 0, true)
	check("changed on disk, wait", nil, 0, true)
}

// TestDiagnosticsOtherFilesSayWhatChanged: another file's new errors are
// under "this change may have broken" only when the files named are the
// only changes that could have made them; a file another agent rewrote
// on disk comes under its own header, with a note naming that change.
func TestDiagnosticsOtherFilesSayWhatChanged(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(c.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const theirs = "package gonav\n\n// Theirs is another agent's.\nfunc Theirs() int { return 1 }\n"
	write("mine.go", "package gonav\n\n// Mine is the agent's.\nfunc Mine(x int) int { return x }\n")
	write("user.go", "package gonav\n\nvar _ = Mine(1)\n")
	write("theirs.go", theirs)
	var out mcp.DiagnosticsOutput
	c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"mine.go", "user.go", "theirs.go"}}, &out)

	// Another agent breaks theirs.go; this one asks about mine.go, unchanged.
	write("theirs.go", "package gonav\n\n// Theirs is another agent's.\nfunc Theirs() int { return undefinedTheirs }\n")
	text := otherFileReported(t, c, "mine.go", "theirs.go", &out)
	want := mcp.FileDiagnostics{Path: "theirs.go", Other: true, Status: "fresh", Servers: []string{"gopls"},
		ChangedBy: []string{"a change on disk to theirs.go"}, Diagnostics: []mcp.Diagnostic{{
			Severity: "error", Line: 4, Column: 28, EndLine: 4, EndColumn: 43, Message: "undefined: undefinedTheirs",
			Source: "compiler", Code: "UndeclaredName"}}}
	if diff := cmp.Diff(want, out.Files[1]); diff != "" {
		t.Errorf("theirs.go (-want +got):\n%s", diff)
	}
	wantText := "<diagnostics file=\"mine.go\" status=\"fresh\">\n</diagnostics>\n" +
		"Other files with errors new since the previous answer that other changes may have caused " +
		"(another agent's, or yours to files not named here; each note says which):\n" +
		"<diagnostics file=\"theirs.go\" status=\"fresh\">\n" +
		"ERROR [4:28] undefined: undefinedTheirs (compiler/UndeclaredName)\n" +
		"</diagnostics>\n" +
		"note: theirs.go may have been broken otherwise: a change on disk to theirs.go\n"
	if text != wantText {
		t.Errorf("text =\n%s\nwant\n%s", text, wantText)
	}

	// The other agent repairs it; this one changes Mine's signature and
	// breaks user.go, which nothing else changed.
	write("theirs.go", theirs)
	testenv.Eventually(t, callTimeout, "theirs.go clean", func() bool {
		out = mcp.DiagnosticsOutput{}
		c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"theirs.go"}}, &out)
		return len(out.Files) == 1 && len(out.Files[0].Diagnostics) == 0
	})
	write("mine.go", "package gonav\n\n// Mine is the agent's.\nfunc Mine(x, y int) int { return x + y }\n")
	text = otherFileReported(t, c, "mine.go", "user.go", &out)
	if f := out.Files[1]; len(f.ChangedBy) != 0 || len(f.Diagnostics) != 1 {
		t.Errorf("user.go = %+v, want its one error, caused by the change to mine.go alone", f)
	}
	if !strings.Contains(text, "Other files with errors new since the previous answer (files this change may have broken):\n"+
		"<diagnostics file=\"user.go\"") || strings.Contains(text, "note:") {
		t.Errorf("text =\n%s\nwant user.go under the header of the change's own", text)
	}
}

// otherFileReported asks for named's diagnostics until other is among the
// other files of the answer (its server may publish it a moment later),
// and returns the answer with other second.
func otherFileReported(t *testing.T, c *client, named, other string, out *mcp.DiagnosticsOutput) string {
	t.Helper()
	var text string
	testenv.Eventually(t, callTimeout, other+" among the other files", func() bool {
		*out = mcp.DiagnosticsOutput{} // decoding into the previous answer would keep its fields
		text = c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{named}}, out)
		return len(out.Files) == 2 && out.Files[1].Path == other
	})
	return text
}

// TestDiagnosticsWaitsForAServerAtWork: a waiting diagnostics call goes on
// past the server's diagnostics timeout (1 s here) while the server says
// it is diagnosing the file (for 3 s, as gopls's first diagnosis of a
// large module takes seconds), and answers fresh with the error it
// published. Before, it answered "timeout" at 1 s: only a server still
// starting or indexing was asked again.
func TestDiagnosticsWaitsForAServerAtWork(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t, "--diagnosing", "--push-delay", "3s")
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake), DiagnosticsTimeout: time.Second})
	if err := os.WriteFile(filepath.Join(c.ws, "late.go"), []byte("ERROR: late\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out mcp.DiagnosticsOutput
	text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"late.go"}}, &out)
	if f := out.Files[0]; f.Status != "fresh" || len(f.Diagnostics) != 1 || f.Diagnostics[0].Message != "late" {
		t.Errorf("diagnostics = %+v, want fresh with the late error; text:\n%s", f, text)
	}
}

// TestDiagnosticsNamesFilesWithoutAServer: a file whose server cannot
// start, or that no server serves, is answered with its status
// (server_broken, no_server) and the reason, every time it is asked about,
// and the other files of the call are checked all the same, as agentlsp
// check reports them. Before, once the runtime knew the server was broken
// (from the second call on), or at once for a file no server serves, the
// whole call failed and the other files' diagnostics were lost.
func TestDiagnosticsNamesFilesWithoutAServer(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	ghost := &config.Server{ID: "ghost", Command: filepath.Join(t.TempDir(), "ghost-lsp"),
		Extensions: map[string]string{".gh": "ghost"}, RootMarkers: []string{"go.mod"}, InstallHint: "install ghost-lsp"}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake, ghost)})
	for name, text := range map[string]string{"bad.go": "ERROR: bad\n", "a.gh": "x\n", "notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(c.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// want is each file's status and what its detail (or, fresh, its one
	// diagnostic) says.
	want := map[string][2]string{
		"bad.go":    {"fresh", "bad"},
		"a.gh":      {"server_broken", "ghost-lsp"},
		"notes.txt": {"no_server", "no language server for this file"},
	}
	for i, files := range [][]string{{"a.gh"}, {"a.gh"}, {"bad.go", "a.gh", "notes.txt"}, {"notes.txt"}} {
		var out mcp.DiagnosticsOutput
		text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: files}, &out)
		var got []string
		for _, f := range out.Files {
			if f.Other {
				continue
			}
			got = append(got, f.Path)
			w := want[f.Path]
			says := f.Detail
			if f.Status == "fresh" && len(f.Diagnostics) == 1 {
				says = f.Diagnostics[0].Message
			}
			if f.Status != w[0] || !strings.Contains(says, w[1]) {
				t.Errorf("call %d %q: %s = %+v, want %s, saying %q", i, files, f.Path, f, w[0], w[1])
			}
			if f.Status != "fresh" && !strings.Contains(text, "note: "+f.Path+" is "+f.Status+": ") {
				t.Errorf("call %d %q: text lacks the note on %s:\n%s", i, files, f.Path, text)
			}
		}
		if !slices.Equal(got, files) || len(out.Skipped) > 0 {
			t.Errorf("call %d %q: files %q, skipped %q, want every file answered, in order", i, files, got, out.Skipped)
		}
		if n := strings.Count(text, "<diagnostics file="); n < len(files) {
			t.Errorf("call %d %q: text has %d files, want %d:\n%s", i, files, n, len(files), text)
		}
	}
}

// TestDiagnosticsSaysWhichOtherFilesItLeftOut: with 12 other files with
// new errors, an answer shows 5 of them and names the other 7, in its text
// (a last line) and its structured content (moreFiles, moreFilePaths).
// Before, the 7 were left out without a word.
func TestDiagnosticsSaysWhichOtherFilesItLeftOut(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	var all []string
	for i := range 12 {
		name := fmt.Sprintf("f%02d.go", i)
		text := fmt.Sprintf("package gonav\n\nvar v%d int = \"x\"\n", i)
		if err := os.WriteFile(filepath.Join(c.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, name)
	}
	var out struct {
		Files         []mcp.FileDiagnostics `json:"files"`
		MoreFiles     int                   `json:"moreFiles"`
		MoreFilePaths []string              `json:"moreFilePaths"`
	}
	text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{"total.go"}}, &out)
	var shown []string
	for _, f := range out.Files[1:] {
		shown = append(shown, f.Path)
	}
	left := slices.DeleteFunc(slices.Clone(all), func(f string) bool { return slices.Contains(shown, f) })
	if len(out.Files) != 6 || out.MoreFiles != 7 || !slices.Equal(out.MoreFilePaths, left) {
		t.Errorf("%d files, moreFiles %d, moreFilePaths %q, want total.go, 5 others, 7 and %q",
			len(out.Files), out.MoreFiles, out.MoreFilePaths, left)
	}
	wantLine := "\n... and 7 more files with new errors: " + strings.Join(left, ", ") + "; ask about them by name\n"
	if !strings.HasSuffix(text, wantLine) {
		t.Errorf("text =\n%s\nwant it to end with%s", text, wantLine)
	}
}

// TestDiagnosticsTextEscapesInvisibleCharacters: the text content (what
// the model reads and a person sees in the agent's transcript) escapes a
// server's control characters and the invisible characters that reorder
// or hide text, in the message and in the file name, as the CLI's text
// does; the structured content keeps both exact. Before, they went raw
// into the text.
func TestDiagnosticsTextEscapesInvisibleCharacters(t *testing.T) {
	cmd, fargs, env := testenv.FakeServer(t)
	fake := &config.Server{ID: "fake", Command: cmd, Args: fargs, Env: env, Extensions: map[string]string{".go": "go"},
		RootMarkers: []string{"go.mod"}}
	c := connect(t, "gonav", agentlsp.Config{Registry: config.RegistryOf(fake)})
	msg := "access \u202e} \u2066admin\u2069 {\u202c \x1b[2J zero\u200bwidth tag\U000E0041"
	name := "evil\u202eog.go"
	if err := os.WriteFile(filepath.Join(c.ws, name), []byte("ERROR: "+msg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out mcp.DiagnosticsOutput
	text := c.ok(t, "diagnostics", mcp.DiagnosticsInput{Files: []string{name}}, &out)
	if len(out.Files) != 1 || out.Files[0].Path != name || len(out.Files[0].Diagnostics) != 1 || out.Files[0].Diagnostics[0].Message != msg {
		t.Errorf("structured files = %+v, want %q with the exact message %q", out.Files, name, msg)
	}
	for _, want := range []string{`file="evil\u202eog.go"`, `access \u202e} \u2066admin\u2069 {\u202c \x1b[2J zero\u200bwidth tag\U000e0041`} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%q", want, text)
		}
	}
	if strings.ContainsAny(text, "\u202e\u2066\u200b\x1b\U000E0041") {
		t.Errorf("text holds the characters raw:\n%q", text)
	}
	// A tool error names the file the same way.
	res := c.call(t, "lsp", mcp.LSPInput{Operation: "hover", FilePath: "gone\u202eog.go", Line: 1, Character: 1})
	if text := resultText(t, res); !res.IsError || !strings.Contains(text, `gone\u202eog.go`) || strings.Contains(text, "\u202e") {
		t.Errorf("hover of a missing file: error %v, text %q; want an error naming gone\\u202eog.go escaped", res.IsError, text)
	}
}
