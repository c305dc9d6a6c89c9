package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/mcp"
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
