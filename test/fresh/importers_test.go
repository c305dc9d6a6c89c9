package fresh

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// A module and an open file that imports it, for the servers whose
// diagnostics depend on other files and that diagnose open files only.
// The module was not open: opening it was a plain pull, answered before
// the server re-checked the importer, so the answer about the module named
// none of the importers it broke (by hand: 0 of 6 with pyright and 0 of 3
// with tsserver for a module written on disk, 0 of 2 each for
// Session.Edit).
type importerCase struct {
	server           string // the server's binary
	files            map[string]string
	module, importer string
	newModule        string // the module with a new signature
	broken           string // the importer's error then
	oracle           func(t *testing.T, ws, rel string) []string
}

var importerCases = []importerCase{
	{server: "pyright-langserver", files: pyFiles, module: "pkg/lib.py", importer: "pkg/app.py",
		newModule: "def greet(name: str, times: int) -> str:\n    return \"hi \" + name * times\n",
		broken:    `Argument missing for parameter "times"`, oracle: pyrightCheck},
	{server: "typescript-language-server", files: tsFiles, module: "src/a.ts", importer: "src/b.ts",
		newModule: "export function f(n: number): number {\n  return n;\n}\n",
		broken:    "Expected 1 arguments, but got 0.", oracle: tscCheck},
}

// TestOpenImporterBrokenByWrittenModule: an agent writes the module on
// disk and asks about it; the answer names the open importer it broke,
// with the errors the language's command line finds.
func TestOpenImporterBrokenByWrittenModule(t *testing.T) {
	for _, c := range importerCases {
		t.Run(c.server, func(t *testing.T) {
			ws, s := c.start(t)
			write(t, ws, c.module, c.newModule)
			r, others := freshDiagnostics(t, s, c.module)
			if errs := errorsOf(r); len(errs) != 0 {
				t.Errorf("%s: %v, want clean", c.module, errs)
			}
			want := c.oracle(t, ws, c.importer)
			if !contains(want, c.broken) {
				t.Fatalf("the oracle says %s has %v: the change should break it", c.importer, want)
			}
			if got, ok := c.importerIn(t, others); ok {
				if diff := cmp.Diff(want, errorsOf(got)); diff != "" {
					t.Errorf("%s in the answer and the oracle differ (-oracle +agentlsp):\n%s", c.importer, diff)
				}
			}
		})
	}
}

// TestOpenImporterBrokenByEditedModule: an edit in memory (Session.Edit)
// of the module names the open importer it broke. pyright re-checks
// importers on a change, not on an open whose text is not the disk's: the
// runtime sends the same text again as a new version after such an open.
func TestOpenImporterBrokenByEditedModule(t *testing.T) {
	for _, c := range importerCases {
		t.Run(c.server, func(t *testing.T) {
			_, s := c.start(t)
			res, err := s.Edit(context.Background(), c.module, c.newModule, agentlsp.WithTimeout(20*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := c.importerIn(t, res.Files[1:]); ok && !contains(errorsOf(got), c.broken) {
				t.Errorf("%s in the answer: %v, want %q", c.importer, errorsOf(got), c.broken)
			}
		})
	}
}

// start makes the workspace and a session that has the importer open,
// clean.
func (c importerCase) start(t *testing.T) (string, *agentlsp.Session) {
	testenv.ServerBinary(t, c.server)
	ws := workspace(t, c.files)
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, c.importer); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	return ws, s
}

// importerIn finds the importer among an answer's other files; it fails
// the test when it is not there.
func (c importerCase) importerIn(t *testing.T, others []messages.FileReport) (messages.FileReport, bool) {
	t.Helper()
	for _, o := range others {
		if filepath.ToSlash(o.Path) == c.importer {
			return o, true
		}
	}
	t.Errorf("other files %v, want %s, which the change to %s broke", names(others), c.importer, c.module)
	return messages.FileReport{}, false
}
