package fresh

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

var pyFiles = map[string]string{
	"pyproject.toml":  "[project]\nname = \"p\"\nversion = \"0\"\n",
	"pkg/__init__.py": "",
	"pkg/lib.py":      "def greet(name: str) -> str:\n    return \"hi \" + name\n",
	"pkg/app.py":      "from pkg.lib import greet\n\nprint(greet(\"x\"))\n",
}

// TestPyrightChangeInUnnamedFile: pyright (pull diagnostics) sees a
// signature changed on disk in a file the call did not name.
func TestPyrightChangeInUnnamedFile(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, pyFiles)
	s := start(t, ws).Session("agent")
	r, _ := freshDiagnostics(t, s, "pkg/app.py")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Fatalf("before: %v, want clean", errs)
	}
	write(t, ws, "pkg/lib.py", "def greet(name: str, times: int) -> str:\n    return \"hi \" + name * times\n")
	r, _ = freshDiagnostics(t, s, "pkg/app.py")
	if errs := errorsOf(r); !contains(errs, `Argument missing for parameter "times"`) {
		t.Errorf("after the signature change: %v, want the missing argument", errs)
	}
	if diff := cmp.Diff(pyrightCheck(t, ws, "pkg/app.py"), errorsOf(r)); diff != "" {
		t.Errorf("fresh answer and pyright differ (-pyright +agentlsp):\n%s", diff)
	}
}

// pyrightCheck is the oracle: the errors of the pyright command line for
// a file, in the form of errorsOf.
func pyrightCheck(t *testing.T, ws, rel string) []string {
	t.Helper()
	cmd := exec.Command(testenv.ServerBinary(t, "pyright"), "--outputjson", filepath.Join(ws, filepath.FromSlash(rel)))
	cmd.Dir = ws
	out, _ := cmd.Output() // exits 1 when it finds errors
	var res struct {
		Diagnostics []struct {
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Range    struct {
				Start messages.Position `json:"start"`
			} `json:"range"`
		} `json:"generalDiagnostics"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("pyright --outputjson: %v\n%s", err, out)
	}
	var errs []string
	for _, d := range res.Diagnostics {
		if d.Severity == "error" {
			errs = append(errs, strconv.Itoa(int(d.Range.Start.Line)+1)+": "+firstLine(d.Message))
		}
	}
	sort.Strings(errs)
	return errs
}

// TestDeletedFileIsNotAnOtherFile: a file whose new error the session was
// not shown yet, then deleted, is not reported among the other files of
// the session's next answer: it is gone, and so are its diagnostics. Found
// by an oracle soak: the answer named it, fresh, with the old error.
func TestDeletedFileIsNotAnOtherFile(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, withFiles(pyFiles, map[string]string{"pkg/other.py": "X = 1\n"}))
	rt := start(t, ws)
	s, observer := rt.Session("agent"), rt.Session("observer")
	freshDiagnostics(t, s, "pkg/app.py")
	freshDiagnostics(t, s, "pkg/other.py")
	write(t, ws, "pkg/lib.py", "def greet(name: str, times: int) -> str:\n    return \"hi \" + name * times\n")
	if r, _ := freshDiagnostics(t, observer, "pkg/app.py"); !contains(errorsOf(r), `Argument missing for parameter "times"`) {
		t.Fatalf("app.py after the signature change: %v, want the missing argument", errorsOf(r))
	}
	if err := os.Remove(filepath.Join(ws, "pkg", "app.py")); err != nil {
		t.Fatal(err)
	}
	_, others := freshDiagnostics(t, s, "pkg/other.py")
	for _, o := range others {
		if strings.HasSuffix(o.Path, "app.py") || strings.HasSuffix(o.URI, "app.py") {
			t.Errorf("the deleted app.py is reported as an other file: %+v", o)
		}
	}
}
