package fresh

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// A module with a package util and a command that calls it, and a second
// module beside it.
var goFiles = map[string]string{
	"go.mod":       "module example.com/app\n\ngo 1.22\n",
	"util/util.go": "package util\n\n// Greeting greets.\nfunc Greeting(name string) string { return \"hi \" + name }\n",
	"cmd/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/util\"\n)\n\n" +
		"func main() {\n\tfmt.Println(util.Greeting(\"x\"))\n}\n",
	"other/go.mod":   "module example.com/other\n\ngo 1.22\n",
	"other/thing.go": "package other\n\n// FarAwaySymbol lives in another module.\nfunc FarAwaySymbol() int { return 1 }\n",
}

const brokenUtil = "package util\n\n// Greeting greets.\nfunc Greeting(name string, times int) string { return \"hi \" + name }\n"

// TestChangeInUnnamedFile: a file the call did not name changes on disk
// (a signature, a new file, a restore); the first answer for its caller is
// fresh and right, and agrees with gopls check.
func TestChangeInUnnamedFile(t *testing.T) {
	ws := workspace(t, goFiles)
	s := start(t, ws).Session("agent")
	r, _ := freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Fatalf("before: %v, want clean", errs)
	}

	write(t, ws, "util/util.go", brokenUtil)
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "not enough arguments in call to util.Greeting") {
		t.Errorf("after the signature change: %v, want not enough arguments", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)

	// The caller uses a function of a file that does not exist yet...
	write(t, ws, "util/util.go", goFiles["util/util.go"])
	write(t, ws, "cmd/main.go", goFiles["cmd/main.go"]+"\nvar _ = util.Extra()\n")
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "undefined: util.Extra") {
		t.Errorf("before the new file: %v, want undefined: util.Extra", errs)
	}
	// ...which is then created: its package sees it at once.
	write(t, ws, "util/extra.go", "package util\n\nfunc Extra() int { return 2 }\n")
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("after the new file: %v, want clean", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)
}

// TestOtherFilesTheChangeBroke: the diagnostics of the file an agent
// changed on disk also name the files the change broke.
func TestOtherFilesTheChangeBroke(t *testing.T) {
	ws := workspace(t, goFiles)
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "cmd/main.go")
	freshDiagnostics(t, s, "util/util.go")
	write(t, ws, "util/util.go", brokenUtil)
	r, others := freshDiagnostics(t, s, "util/util.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("util.go: %v, want clean", errs)
	}
	var caller *messages.FileReport
	for i := range others {
		if filepath.Base(others[i].Path) == "main.go" {
			caller = &others[i]
		}
	}
	if caller == nil || !caller.Other || !contains(errorsOf(*caller), "not enough arguments") {
		t.Fatalf("other files = %+v, want cmd/main.go with the broken call", others)
	}
	if len(caller.ChangedBy) != 0 {
		t.Errorf("cmd/main.go, broken by the change to the file named alone: changed by %q, want nothing else", caller.ChangedBy)
	}
	// Told once: the next answer does not repeat it.
	_, others = freshDiagnostics(t, s, "util/util.go")
	if len(others) != 0 {
		t.Errorf("second answer repeats other files: %+v", others)
	}
}

// TestDeletedFile: a file opened earlier (by a navigation), then deleted
// on disk, is closed on its server: its dependents see the deletion, and
// navigation into it is a clear error.
func TestDeletedFile(t *testing.T) {
	ws := workspace(t, withFiles(goFiles, map[string]string{
		"util/extra.go": "package util\n\nfunc Extra() int { return 2 }\n",
		"cmd/main.go":   goFiles["cmd/main.go"] + "\nvar _ = util.Extra()\n",
	}))
	s := start(t, ws).Session("agent")
	ctx := context.Background()
	if _, err := s.Hover(ctx, "util/extra.go", agentlsp.Position{Line: 2, Character: 6}); err != nil {
		t.Fatalf("Hover(extra.go): %v", err)
	}
	r, _ := freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Fatalf("before: %v", errs)
	}
	if err := os.Remove(filepath.Join(ws, "util", "extra.go")); err != nil {
		t.Fatal(err)
	}
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "undefined: util.Extra") {
		t.Errorf("after the deletion: %v, want undefined: util.Extra", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)
	if _, err := s.Definition(ctx, "util/extra.go", agentlsp.Position{Line: 2, Character: 6}); !errors.Is(err, messages.ErrFileNotFound) {
		t.Errorf("Definition in the deleted file = %v, want ErrFileNotFound", err)
	}
}

// TestWorkspaceSymbolsEverywhere: a symbol of a module no call touched is
// found after calls in another module, and a file narrows the search.
func TestWorkspaceSymbolsEverywhere(t *testing.T) {
	ws := workspace(t, goFiles)
	s := start(t, ws).Session("agent")
	freshDiagnostics(t, s, "cmd/main.go") // gopls runs for the first module only
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []string
	for deadline := time.Now().Add(60 * time.Second); ; {
		ans, err := s.WorkspaceSymbols(ctx, "FarAwaySymbol")
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, sym := range ans.Symbols {
			got = append(got, sym.Name)
		}
		if len(got) > 0 || len(ans.Starting) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if !cmp.Equal(got, []string{"FarAwaySymbol"}) {
		t.Errorf("WorkspaceSymbols(FarAwaySymbol) = %v, want it found in the other module", got)
	}
	ans, err := s.WorkspaceSymbols(ctx, "FarAwaySymbol", "cmd/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Symbols) != 0 {
		t.Errorf("narrowed to cmd/main.go's module: %v, want nothing", ans.Symbols)
	}
}

// checkOracle compares a fresh answer with gopls check of the same file.
func checkOracle(t *testing.T, ws, rel string, r messages.FileReport) {
	t.Helper()
	if diff := cmp.Diff(goplsCheck(t, ws, rel), errorsOf(r)); diff != "" {
		t.Errorf("%s: fresh answer and gopls check differ (-gopls +agentlsp):\n%s", rel, diff)
	}
}

// TestKeptDefinitionFileChangedOnDisk: the file a definition named is kept
// open on gopls (openTargets). Changed on disk, it reaches gopls as the new
// text of an open document: answers about it and about its callers are
// fresh and agree with gopls check; deleted, it is closed.
func TestKeptDefinitionFileChangedOnDisk(t *testing.T) {
	ws := workspace(t, goFiles)
	rt := start(t, ws)
	s := rt.Session("agent")
	freshDiagnostics(t, s, "cmd/main.go")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	def, err := s.Definition(ctx, "cmd/main.go", agentlsp.Position{Line: 9, Character: 19})
	if err != nil || len(def.Locations) != 1 || filepath.Base(def.Locations[0].Path) != "util.go" {
		t.Fatalf("Definition = %+v, %v; want util/util.go", def, err)
	}
	openFiles := func() int {
		servers, err := rt.Servers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, sv := range servers {
			n += sv.OpenFiles
		}
		return n
	}
	if n := openFiles(); n != 2 {
		t.Fatalf("open files after the definition = %d, want 2 (cmd/main.go and the kept util/util.go)", n)
	}

	write(t, ws, "util/util.go", brokenUtil)
	r, _ := freshDiagnostics(t, s, "cmd/main.go")
	if errs := errorsOf(r); !contains(errs, "not enough arguments in call to util.Greeting") {
		t.Errorf("after the signature change: %v, want not enough arguments", errs)
	}
	checkOracle(t, ws, "cmd/main.go", r)

	write(t, ws, "util/util.go", "package util\n\n// Greeting greets.\nfunc Greeting(name string) string { return 1 }\n")
	r, _ = freshDiagnostics(t, s, "util/util.go")
	checkOracle(t, ws, "util/util.go", r)
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	checkOracle(t, ws, "cmd/main.go", r)

	if err := os.Remove(filepath.Join(ws, "util", "util.go")); err != nil {
		t.Fatal(err)
	}
	r, _ = freshDiagnostics(t, s, "cmd/main.go")
	if len(errorsOf(r)) == 0 {
		t.Errorf("after the delete: clean, want the call to util.Greeting broken")
	}
	checkOracle(t, ws, "cmd/main.go", r)
	if n := openFiles(); n != 1 {
		t.Errorf("open files after the delete = %d, want 1", n)
	}
}
