package fresh

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
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

// TestPyrightOpenFileBrokenByTheNamedFile: an agent writes a module on
// disk that no session has open and asks about it; the answer names the
// open module that the change broke, as pyright's command line finds it.
// Opening the changed module was a plain pull: pyright re-checked its
// importers only after the answer (after a refresh), so the answer named
// none of them (0 of 6 by hand, with pyright and with tsserver).
func TestPyrightOpenFileBrokenByTheNamedFile(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, pyFiles)
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, "pkg/app.py"); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	write(t, ws, "pkg/lib.py", "def greet(name: str, times: int) -> str:\n    return \"hi \" + name * times\n")
	r, others := freshDiagnostics(t, s, "pkg/lib.py")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("pkg/lib.py: %v, want clean", errs)
	}
	want := pyrightCheck(t, ws, "pkg/app.py")
	if !contains(want, `Argument missing for parameter "times"`) {
		t.Fatalf("the oracle says pkg/app.py has %v: the change should break it", want)
	}
	for _, o := range others {
		if filepath.ToSlash(o.Path) == "pkg/app.py" {
			if diff := cmp.Diff(want, errorsOf(o)); diff != "" {
				t.Errorf("pkg/app.py in the answer and pyright differ (-pyright +agentlsp):\n%s", diff)
			}
			return
		}
	}
	t.Errorf("other files %v, want pkg/app.py, which the change to pkg/lib.py broke", names(others))
}

// TestPyrightEditOfUnopenedModule: an edit in memory (Session.Edit) of a
// module no session had open names the open module it broke. pyright
// re-checks importers on a change, not on an open whose text is not the
// disk's: the runtime opens it, then sends the same text again as a new
// version (without that, 0 of 2 answers named it).
func TestPyrightEditOfUnopenedModule(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, pyFiles)
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, "pkg/app.py"); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	res, err := s.Edit(context.Background(), "pkg/lib.py", "def greet(name: str, times: int) -> str:\n    return \"hi \" + name * times\n",
		agentlsp.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files[1:] {
		if filepath.ToSlash(f.Path) == "pkg/app.py" {
			if errs := errorsOf(f); !contains(errs, `Argument missing for parameter "times"`) {
				t.Errorf("pkg/app.py in the answer: %v, want the missing argument", errs)
			}
			return
		}
	}
	t.Errorf("files %v (meanwhile %v), want pkg/app.py, which the edit of pkg/lib.py broke", names(res.Files), names(res.Meanwhile))
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
