package fresh

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/test/testenv"
)

var tsFiles = map[string]string{
	"package.json": `{"name": "app", "private": true}`,
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
		"moduleResolution": "bundler", "lib": ["es2022"], "types": []}, "include": ["src"]}`,
	"src/a.ts": "export function f(): number {\n  return 1;\n}\n",
	"src/b.ts": "import { f } from \"./a\";\n\nexport function g(): number {\n  return f();\n}\n",
	"src/c.ts": "export const x: number = 1;\n",
}

// TestTypeScriptModuleRecreated: a module deleted, then made again while
// another open file changes. tsserver hears of files it does not have open
// only through file watching: agentlsp's watcher, which tsserver takes
// only when asked to (typescript-language-server's useClientFileWatcher).
// Before, the importer's next answer said fresh with "Cannot find module"
// for tens of seconds, where tsc reports nothing (found by an oracle soak).
func TestTypeScriptModuleRecreated(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, tsFiles)
	s := start(t, ws).Session("agent")
	all := []string{"src/a.ts", "src/b.ts", "src/c.ts"}
	for deadline := time.Now().Add(90 * time.Second); ; { // one call, as an agent's first
		reports, err := s.Diagnostics(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(reports, func(r messages.FileReport) bool { return r.Status != messages.StatusFresh }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never fresh: %+v", reports)
		}
	}
	if err := os.Remove(filepath.Join(ws, "src", "a.ts")); err != nil {
		t.Fatal(err)
	}
	r, _ := freshDiagnostics(t, s, "src/b.ts")
	if errs := errorsOf(r); !contains(errs, "Cannot find module './a'") {
		t.Errorf("after deleting a.ts: %v, want the import unresolved", errs)
	}
	write(t, ws, "src/a.ts", tsFiles["src/a.ts"])
	write(t, ws, "src/c.ts", "export const x: number = 2;\n")
	r, _ = freshDiagnostics(t, s, "src/b.ts")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("after making a.ts again: %v, want clean", errs)
	}
	checkTSC(t, ws, "src/b.ts", errorsOf(r))
}

// checkTSC compares a fresh answer's errors with tsc's.
func checkTSC(t *testing.T, ws, rel string, errs []string) {
	t.Helper()
	if diff := cmp.Diff(tscCheck(t, ws, rel), errs); diff != "" {
		t.Errorf("%s: fresh answer and tsc differ (-tsc +agentlsp):\n%s", rel, diff)
	}
}

// tscLine is one diagnostic of `tsc --pretty false`: path(line,col): error TSn: message.
var tscLine = regexp.MustCompile(`^(.+?)\((\d+),\d+\): error TS\d+: (.*)$`)

// tscCheck is the oracle: the errors `tsc --noEmit -p .` reports for a
// file, in the form of errorsOf.
func tscCheck(t *testing.T, ws, rel string) []string {
	t.Helper()
	return tscCheckProject(t, ws, ".", rel)
}

// tscCheckProject is tscCheck with `-p project` (a directory of ws).
func tscCheckProject(t *testing.T, ws, project, rel string) []string {
	t.Helper()
	cmd := exec.Command(testenv.ServerBinary(t, "tsc"), "--noEmit", "-p", project, "--pretty", "false")
	cmd.Dir = ws
	out, _ := cmd.Output() // exits 2 when it finds errors
	var errs []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := tscLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil && filepath.ToSlash(m[1]) == rel {
			errs = append(errs, m[2]+": "+firstLine(m[3]))
		}
	}
	sort.Strings(errs)
	return errs
}

// TestTypeScriptWorkspaceSymbolsOfAFile: a workspace symbol search narrowed
// to a file, as an agent's first call, opens the file: tsserver has no
// project before a file of it is open, and answered "No Project".
func TestTypeScriptWorkspaceSymbolsOfAFile(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, withFiles(tsFiles, map[string]string{"src/shapes.ts": "export function totalArea(r: number): number {\n  return r * r;\n}\n"}))
	s := start(t, ws).Session("agent")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ans *results.SymbolsAnswer
	for { // asked again while the server said it was still loading the project, as the MCP tool says to
		var err error
		ans, err = s.WorkspaceSymbols(ctx, "totalArea", "src/b.ts") // in another file: the project, not only b.ts
		if err != nil {
			t.Fatal(err)
		}
		if len(ans.Symbols) > 0 || !ans.Indexing && len(ans.Starting) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	found := false
	for _, sym := range ans.Symbols {
		found = found || sym.Name == "totalArea" && strings.HasSuffix(sym.URI, "/src/shapes.ts")
	}
	if !found {
		t.Errorf("workspace symbols of totalArea from src/b.ts: %+v (errors %v), want it in src/shapes.ts", ans.Symbols, ans.Errors)
	}
}

// TestTypeScriptWorkspaceSymbols: a symbol search of the whole workspace
// with no file open. tsserver has no project before one of its files is
// open and answered "No Project"; the router now opens one first. The
// servers package.json implies but that are not installed here (the JSON,
// CSS and HTML servers) are left out, instead of answering that they
// cannot start.
func TestTypeScriptWorkspaceSymbols(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, withFiles(tsFiles, map[string]string{"src/shapes.ts": "export function totalArea(r: number): number {\n  return r * r;\n}\n"}))
	s := start(t, ws).Session("agent")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Asked again while the server said it was still starting or loading
	// the project, as the MCP tool says to.
	for {
		ans, err := s.WorkspaceSymbols(ctx, "totalArea")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, sym := range ans.Symbols {
			found = found || sym.Name == "totalArea" && strings.HasSuffix(sym.URI, "/src/shapes.ts")
		}
		if found || !ans.Indexing && len(ans.Starting) == 0 {
			if !found || len(ans.Errors) > 0 || !slices.Equal(ans.Servers, []string{"typescript-language-server"}) {
				t.Errorf("workspace symbols of totalArea: %+v from %v (errors %v), want it in src/shapes.ts from typescript-language-server alone",
					ans.Symbols, ans.Servers, ans.Errors)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
