package fresh

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// Importers nobody opened. pyright and tsserver diagnose open files only:
// an agent that changed a module and asked about it heard nothing of the
// files it broke unless a session had them open. The router now opens a
// changed module's importers (OpenImporters) before the change reaches
// the server. The first diagnosis of such a file has nothing before it:
// its errors are reported as first checked (they may predate the change),
// never as the change's own; once open, a later break is the change's.

// unrelated is a file of each case's project that imports nothing and
// nothing imports: asking about it first starts the server (and shows
// the watcher is up) without opening the module or its importer.
var unrelated = map[string]string{"pyright-langserver": "pkg/__init__.py", "typescript-language-server": "src/c.ts"}

// firstCheckedPrefix begins the reason given for a file first diagnosed
// in an answer's window.
const firstCheckedPrefix = "first checked now"

// TestUnopenedImporterBrokenByWrittenModule: the module is written on
// disk and asked about; the importer, never opened, is in the answer with
// the command line's errors, marked first checked. Repaired and broken
// again, it is the change's own.
func TestUnopenedImporterBrokenByWrittenModule(t *testing.T) {
	for _, c := range importerCases {
		t.Run(c.server, func(t *testing.T) {
			testenv.ServerBinary(t, c.server)
			ws := workspace(t, c.files)
			s := start(t, ws).Session("agent")
			freshDiagnostics(t, s, unrelated[c.server])
			write(t, ws, c.module, c.newModule)
			_, others := freshDiagnostics(t, s, c.module)
			want := c.oracle(t, ws, c.importer)
			if !contains(want, c.broken) {
				t.Fatalf("the oracle says %s has %v: the change should break it", c.importer, want)
			}
			if got, ok := c.importerIn(t, others); ok {
				if diff := cmp.Diff(want, errorsOf(got)); diff != "" {
					t.Errorf("%s in the answer and the oracle differ (-oracle +agentlsp):\n%s", c.importer, diff)
				}
				if !firstChecked(got) {
					t.Errorf("%s: changed by %q, want it marked first checked (no diagnosis of it before)", c.importer, got.ChangedBy)
				}
			}
			write(t, ws, c.module, c.files[c.module])
			freshDiagnostics(t, s, c.module)
			write(t, ws, c.module, c.newModule)
			_, others = freshDiagnostics(t, s, c.module)
			if got, ok := c.importerIn(t, others); ok && (len(got.ChangedBy) > 0 || !contains(errorsOf(got), c.broken)) {
				t.Errorf("broken again: %s %v, changed by %q; want %q, the change's own", c.importer, errorsOf(got), got.ChangedBy, c.broken)
			}
		})
	}
}

// TestUnopenedImporterBrokenByEditedModule: the same for an edit in
// memory (Session.Edit) of an open module. The disk still has the
// module's old text, so the importer's first diagnosis, which the router
// waits for before the edit goes out, is a baseline: the break is the
// edit's own from the first edit.
func TestUnopenedImporterBrokenByEditedModule(t *testing.T) {
	for _, c := range importerCases {
		t.Run(c.server, func(t *testing.T) {
			testenv.ServerBinary(t, c.server)
			ws := workspace(t, c.files)
			s := start(t, ws).Session("agent")
			freshDiagnostics(t, s, c.module) // the server runs; the module is open, unchanged
			others := edit(t, s, c.module, c.newModule)
			if got, ok := c.importerIn(t, others); ok {
				if !contains(errorsOf(got), c.broken) {
					t.Errorf("%s in the answer: %v, want %q", c.importer, errorsOf(got), c.broken)
				}
				// The router waited for its first diagnosis, with the
				// module's text before the edit: the break is the edit's.
				if len(got.ChangedBy) > 0 {
					t.Errorf("%s: changed by %q, want the edit's own (its diagnosis before the edit is the baseline)", c.importer, got.ChangedBy)
				}
			}
			edit(t, s, c.module, c.files[c.module])
			others = edit(t, s, c.module, c.newModule)
			if got, ok := c.importerIn(t, others); ok && (len(got.ChangedBy) > 0 || !contains(errorsOf(got), c.broken)) {
				t.Errorf("broken again: %s %v, changed by %q; want %q, the edit's own", c.importer, errorsOf(got), got.ChangedBy, c.broken)
			}
		})
	}
}

// TestUnopenedImporterOlderErrorsNotTheChanges: the importer had an error
// of its own before; a change of the module that breaks nothing opens it,
// and its error is reported as first checked, not as the change's.
func TestUnopenedImporterOlderErrorsNotTheChanges(t *testing.T) {
	older := map[string]struct{ file, text, harmless string }{
		"pyright-langserver": {"pkg/app.py", "from pkg.lib import greet\n\nprint(greet(\"x\"))\nn: int = \"s\"\n",
			"def greet(name: str) -> str:\n    return \"hello \" + name\n"},
		"typescript-language-server": {"src/b.ts", "import { f } from \"./a\";\n\nexport function g(): number {\n  return f();\n}\nconst n: number = \"s\";\n",
			"export function f(): number {\n  return 2;\n}\n"},
	}
	for _, c := range importerCases {
		t.Run(c.server, func(t *testing.T) {
			o := older[c.server]
			testenv.ServerBinary(t, c.server)
			ws := workspace(t, withFiles(c.files, map[string]string{o.file: o.text}))
			s := start(t, ws).Session("agent")
			freshDiagnostics(t, s, unrelated[c.server])
			write(t, ws, c.module, o.harmless)
			_, others := freshDiagnostics(t, s, c.module)
			want := c.oracle(t, ws, c.importer)
			if len(want) == 0 {
				t.Fatalf("the oracle finds no error in %s", c.importer)
			}
			if got, ok := c.importerIn(t, others); ok {
				if diff := cmp.Diff(want, errorsOf(got)); diff != "" {
					t.Errorf("%s in the answer and the oracle differ (-oracle +agentlsp):\n%s", c.importer, diff)
				}
				if !firstChecked(got) {
					t.Errorf("%s: its older error was reported as the change's (changed by %q)", c.importer, got.ChangedBy)
				}
			}
		})
	}
}

// edit is Session.Edit with a long timeout; it returns the other files of
// the answer, which must be fresh: those it broke, then those changed
// meanwhile (Meanwhile), where a first checked file is.
func edit(t *testing.T, s *agentlsp.Session, rel, text string) []messages.FileReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Edit(ctx, rel, text, agentlsp.WithTimeout(30*time.Second))
	if err != nil {
		t.Fatalf("Edit(%s): %v", rel, err)
	}
	if res.Status != messages.StatusFresh {
		t.Fatalf("Edit(%s) = %s, want fresh", rel, res.Status)
	}
	return append(res.Files[1:], res.Meanwhile...)
}

// firstChecked reports whether a report says its file was first diagnosed
// in the answer's window.
func firstChecked(r messages.FileReport) bool {
	return len(r.ChangedBy) > 0 && strings.HasPrefix(r.ChangedBy[0], firstCheckedPrefix)
}
