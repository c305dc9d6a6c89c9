// Package e2e runs the embedding API against real language servers, one
// testdata project each, with exact expected diagnostics and navigation.
package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/results"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes (see testenv.Main), and removes the agentlsp commands
// the tests built, if any.
func TestMain(m *testing.M) {
	testenv.MainWith(m, func() func() {
		return func() {
			plainBuild.remove()
			raceBuild.remove()
		}
	})
}

// project is one real-server case.
type project struct {
	name     string
	dir      string // under test/testdata
	binary   string // the server binary the test needs
	file     string // the file edited and navigated
	addError func(text string) string
	want     messages.Diagnostic
	defAt    agentlsp.Position
	defFile  string
	defRange agentlsp.Range
}

func rng(l1, c1, l2, c2 uint32) agentlsp.Range {
	return agentlsp.Range{Start: agentlsp.Position{Line: l1, Character: c1}, End: agentlsp.Position{Line: l2, Character: c2}}
}

func diag(l1, c1, l2, c2 uint32, code, source, msg string) messages.Diagnostic {
	return messages.Diagnostic{Range: messages.Range{
		Start: messages.Position{Line: l1, Character: c1}, End: messages.Position{Line: l2, Character: c2}},
		Severity: messages.SeverityError, Code: code, Source: source, Message: msg}
}

var projects = []project{
	{
		name: "gopls", dir: "gomod", binary: "gopls", file: "main.go",
		addError: func(t string) string { return t + "\nvar broken int = \"s\"\n" },
		want:     diag(13, 17, 13, 20, "IncompatibleAssign", "compiler", `cannot use "s" (untyped string constant) as int value in variable declaration`),
		defAt:    agentlsp.Position{Line: 10, Character: 14}, defFile: "main.go", defRange: rng(5, 5, 5, 13),
	},
	{
		name: "pyright", dir: "pyproj", binary: "pyright-langserver", file: "main.py",
		addError: func(t string) string { return t + "helper(\"one\")\n" },
		want: diag(3, 7, 3, 12, "reportArgumentType", "Pyright",
			"Argument of type \"Literal['one']\" cannot be assigned to parameter \"x\" of type \"int\" in function \"helper\"\n\u00a0\u00a0\"Literal['one']\" is not assignable to \"int\""),
		defAt: agentlsp.Position{Line: 2, Character: 7}, defFile: "util.py", defRange: rng(0, 4, 0, 10),
	},
	{
		name: "typescript", dir: "tsproj", binary: "typescript-language-server", file: "src/main.ts",
		addError: func(t string) string { return t + "const n: number = \"s\";\n" },
		want:     diag(3, 6, 3, 7, "2322", "typescript", "Type 'string' is not assignable to type 'number'."),
		defAt:    agentlsp.Position{Line: 2, Character: 13}, defFile: "src/util.ts", defRange: rng(0, 16, 0, 22),
	},
	{
		name: "clangd", dir: "cproj", binary: "clangd", file: "main.c",
		addError: func(t string) string { return strings.Replace(t, "return 0;", "return missing;", 1) },
		want:     diag(5, 9, 5, 16, "undeclared_var_use", "clang", "Use of undeclared identifier 'missing'"),
		// Without a compilation database clangd knows the declaration only.
		defAt: agentlsp.Position{Line: 4, Character: 18}, defFile: "util.h", defRange: rng(3, 4, 3, 7),
	},
}

func TestRealServers(t *testing.T) {
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) {
			testenv.ServerBinary(t, p.binary) // fails if the test command did not install it
			ws := testenv.CopyDir(t, filepath.Join("..", "testdata", p.dir))
			rt, err := agentlsp.Start(context.Background(), agentlsp.Config{
				Workspace: ws, DiagnosticsTimeout: 60 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := rt.Shutdown(ctx); err != nil {
					t.Error(err)
				}
			}()
			checkProject(t, rt, ws, p)
		})
	}
}

func checkProject(t *testing.T, rt *agentlsp.Runtime, ws string, p project) {
	ctx := context.Background()
	s := rt.Session("e2e")
	path := filepath.Join(ws, p.file)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Edit(ctx, path, string(good)); err != nil || res.Status != messages.StatusFresh {
		t.Fatalf("open %s: %+v, %v", p.file, res, err)
	}
	res, err := s.Edit(ctx, path, p.addError(string(good)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]messages.Diagnostic{p.want}, res.Files[0].Diagnostics); diff != "" || res.Status != messages.StatusFresh {
		t.Errorf("error edit: status %s (%s), diagnostics (-want +got):\n%s", res.Status, res.Files[0].Detail, diff)
	}
	res, err = s.Edit(ctx, path, string(good))
	if err != nil || res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 0 {
		t.Errorf("fix: %+v, %v; want fresh and clean", res, err)
	}
	def, err := s.Definition(ctx, path, p.defAt)
	if err != nil {
		t.Fatal(err)
	}
	want := results.Location{URI: "file://" + filepath.Join(ws, p.defFile), Path: filepath.Join(ws, p.defFile), Range: p.defRange}
	if len(def.Locations) == 0 || def.Locations[0] != want {
		t.Errorf("definition = %+v, want %+v", def.Locations, want)
	}
}
