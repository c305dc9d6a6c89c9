package diagnostics_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

func realEdit(r *messages.AwaitEdit) { r.Timeout = 60 * time.Second }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func diag(line, col, endLine, endCol uint32, code, source, msg string) messages.Diagnostic {
	return messages.Diagnostic{
		Range: messages.Range{
			Start: messages.Position{Line: line, Character: col}, End: messages.Position{Line: endLine, Character: endCol},
		},
		Severity: messages.SeverityError, Code: code, Source: source, Message: msg,
	}
}

// TestPipelineRealGopls: an edit that introduces an error gets exactly
// that error, fresh; the fix gets a clean fresh answer; an edit in one file
// that breaks an importer reports the importer as another file.
func TestPipelineRealGopls(t *testing.T) {
	h := actortest.New(t)
	ws := t.TempDir()
	testenv.CopyInto(t, actortest.Testdata("gomod"), filepath.Join(ws, "gomod"))
	testenv.CopyInto(t, actortest.Testdata("gocross"), filepath.Join(ws, "gocross"))
	ws, _ = filepath.EvalSymlinks(ws)
	p := h.Pipeline(ws, config.RegistryOf(actortest.Builtin(t, "gopls", "gopls")), diagnostics.Config{})

	main := filepath.Join(ws, "gomod", "main.go")
	good := readFile(t, main)
	p.Edit("agent", main, good, realEdit) // open
	res := p.Edit("agent", main, good+"\nfunc broken() int { return \"s\" }\n", realEdit)
	want := []messages.Diagnostic{diag(13, 27, 13, 30, "IncompatibleAssign", "compiler",
		`cannot use "s" (untyped string constant) as int value in return statement`)}
	if diff := cmp.Diff(want, res.Files[0].Diagnostics); diff != "" || res.Status != messages.StatusFresh {
		t.Errorf("edit %s (-want +got):\n%s", res.Status, diff)
	}
	res = p.Edit("agent", main, good, realEdit)
	if len(res.Files[0].Diagnostics) != 0 || res.Status != messages.StatusFresh || len(res.Files) != 1 {
		t.Errorf("fix = %s %+v, want fresh and clean", res.Status, res.Files)
	}

	a, b := filepath.Join(ws, "gocross", "a.go"), filepath.Join(ws, "gocross", "b.go")
	p.Edit("agent", a, readFile(t, a), realEdit)
	p.Edit("agent", b, readFile(t, b), realEdit)
	res = p.Edit("agent", b, "package cross\n\n// C replaced B.\nfunc C() int { return 41 }\n", realEdit)
	if res.Status != messages.StatusFresh || len(res.Files) != 2 || len(res.Files[0].Diagnostics) != 0 {
		t.Fatalf("rename in b.go = %s %+v, want b.go clean and a.go as another file", res.Status, res.Files)
	}
	other := res.Files[1]
	if other.URI != paths.URI(a) || !cmp.Equal(other.Diagnostics, []messages.Diagnostic{
		diag(4, 8, 4, 9, "UndeclaredName", "compiler", "undefined: B"),
	}) {
		t.Errorf("other file = %s %+v, want a.go with undefined: B", other.URI, other.Diagnostics)
	}
}

// TestPipelineRealPyright: the same with pyright, which we ask for pull
// diagnostics.
func TestPipelineRealPyright(t *testing.T) {
	h := actortest.New(t)
	ws := t.TempDir()
	testenv.CopyInto(t, actortest.Testdata("pyproj"), ws)
	ws, _ = filepath.EvalSymlinks(ws)
	p := h.Pipeline(ws, config.RegistryOf(actortest.Builtin(t, "pyright", "pyright-langserver")), diagnostics.Config{})

	main, util := filepath.Join(ws, "main.py"), filepath.Join(ws, "util.py")
	good := readFile(t, main)
	p.Edit("agent", util, readFile(t, util), realEdit)
	p.Edit("agent", main, good, realEdit)
	res := p.Edit("agent", main, good+"count: int = \"three\"\n", realEdit)
	want := []messages.Diagnostic{diag(3, 13, 3, 20, "reportAssignmentType", "Pyright",
		"Type \"Literal['three']\" is not assignable to declared type \"int\"\n\u00a0\u00a0\"Literal['three']\" is not assignable to \"int\"")}
	if diff := cmp.Diff(want, res.Files[0].Diagnostics); diff != "" || res.Status != messages.StatusFresh {
		t.Errorf("edit %s (-want +got):\n%s", res.Status, diff)
	}
	res = p.Edit("agent", main, good, realEdit)
	if len(res.Files[0].Diagnostics) != 0 || res.Status != messages.StatusFresh {
		t.Errorf("fix = %s %+v, want fresh and clean", res.Status, res.Files)
	}
	res = p.Edit("agent", util, "def helper2(x: int) -> int:\n    return x + 1\n", realEdit)
	if res.Status != messages.StatusFresh || len(res.Files) != 2 || res.Files[1].URI != paths.URI(main) {
		t.Fatalf("rename in util.py = %s %+v (meanwhile %+v), want main.py as another file", res.Status, res.Files, res.Meanwhile)
	}
	if got := res.Files[1].Diagnostics; len(got) != 1 || got[0].Range.Start != (messages.Position{Line: 0, Character: 17}) ||
		got[0].Message != "\"helper\" is unknown import symbol" {
		t.Errorf("main.py after rename = %+v", got)
	}
}
