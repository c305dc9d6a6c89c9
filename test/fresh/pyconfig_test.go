package fresh

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

var pyLooseFiles = map[string]string{
	"pyproject.toml":    pyBase,
	"app/__init__.py":   "",
	"app/loose.py":      "def f(x):\n    return x\n",
	"app/uses_loose.py": "from app.loose import f\n\nprint(f(1))\n",
}

const (
	pyBase   = "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"
	pyStrict = pyBase + "\n[tool.pyright]\ntypeCheckingMode = \"strict\"\n"
)

// TestPyprojectChangeIsFresh: a diagnostics call right after
// pyproject.toml changes pyright's settings answers with the new settings,
// as pyright's command line does, both ways. pyright reloads the file
// some 250 ms after it hears of the change, in a timer of its own: the
// call, a few milliseconds after the write, was answered fresh with the
// old settings' result.
func TestPyprojectChangeIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, pyLooseFiles)
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "app/uses_loose.py")
	if r, _ := freshDiagnostics(t, s, "app/loose.py"); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	for i, text := range []string{pyStrict, pyBase, pyStrict} {
		write(t, ws, "pyproject.toml", text)
		r, _ := freshDiagnostics(t, s, "app/loose.py")
		want := pyrightCheck(t, ws, "app/loose.py")
		if text == pyStrict && len(want) == 0 {
			t.Fatalf("pyright finds nothing in strict mode: the test proves nothing")
		}
		if diff := cmp.Diff(want, errorsOf(r)); diff != "" {
			t.Errorf("step %d: fresh answer and pyright differ (-pyright +agentlsp):\n%s", i, diff)
		}
	}
}

// TestPyrightconfigCreatedIsFresh: a pyrightconfig.json created beside a
// pyproject.toml takes over pyright's settings, for the language server
// as for its command line. The language server never reads it until it
// restarts (it watches only the configuration file it read): every answer
// was fresh with the old settings, for as long as it ran.
func TestPyrightconfigCreatedIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, pyLooseFiles)
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, "app/loose.py"); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	write(t, ws, "pyrightconfig.json", `{"typeCheckingMode": "strict"}`+"\n")
	r, _ := freshDiagnostics(t, s, "app/loose.py")
	want := pyrightCheck(t, ws, "app/loose.py")
	if len(want) == 0 {
		t.Fatalf("pyright finds nothing with pyrightconfig.json: the test proves nothing")
	}
	if diff := cmp.Diff(want, errorsOf(r)); diff != "" {
		t.Errorf("fresh answer and pyright differ (-pyright +agentlsp):\n%s", diff)
	}
}
