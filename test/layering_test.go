// Package test holds the end-to-end tests, the fake language server and
// the testdata workspaces. This file enforces the package layering of
// DESIGN.md section 2.
package test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

const module = "github.com/agentlsp/agentlsp"

// rank is the layer of a package: a package may import only project
// packages of a lower rank. Packages not listed (cmd/..., bench, test/...)
// are at the top. Nothing imports cmd/; only test/ imports test/ (test
// files of every package may, which go list -f .Imports does not show).
var rank = map[string]int{
	"messages":                 0,
	"textpos":                  0,
	"safetext":                 0, // text shown to terminals and transcripts, escaped
	"lookpath":                 0, // a server's command on PATH, past rustup's proxies
	"paths":                    1,
	"transport":                1,
	"dedup":                    1,
	"supervisor":               1,
	"config":                   3, // validates configFiles globs (lspglob)
	"install":                  1, // server installation (cmd only)
	"gcfloor":                  0, // the process's GC pacing (cmd, and embedders who want it)
	"lspglob":                  2,
	"results":                  2,
	"editor":                   2,
	"reach":                    2,
	"actors/lifecycle":         2,
	"actors/server/calls":      3, // the single-threaded cores of the actors
	"actors/server/docs":       3,
	"actors/server/pulls":      3,
	"actors/diagnostics/store": 3,
	"actors/diagnostics/edits": 3,
	"actors/server":            4,
	"actors/watcher":           4,
	"actors/diagnostics":       4,
	"actors/subscriber":        4, // a session's Batches channel
	"actors/router":            5,
	"daemon/rundir":            1, // the shared daemon: runtime directory,
	"daemon/codec":             4, // messages across processes,
	"daemon":                   5, // serving and dialling a daemon (remote plumbing)
	"":                         6, // the root package: the embedding API
	"mcp":                      7,
}

func layer(pkg string) (int, bool) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	r, ok := rank[rel]
	return r, ok
}

func TestPackageLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		from, ranked := layer(pkg)
		if rel := strings.TrimPrefix(pkg, module+"/"); !ranked && !strings.HasPrefix(rel, "cmd/") &&
			!strings.HasPrefix(rel, "bench") && !strings.HasPrefix(rel, "test") {
			t.Errorf("%s has no layer: add it to rank", pkg)
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			checked++
			rel := strings.TrimPrefix(imp, module+"/")
			inTest := strings.HasPrefix(pkg, module+"/test/") || strings.HasPrefix(pkg, module+"/bench/") // bench/ runs the fake server
			if strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "test/") && !inTest {
				t.Errorf("%s imports %s: nothing may import cmd/, and only test/ imports test/", pkg, imp)
				continue
			}
			to, ok := layer(imp)
			if ranked && (!ok || to >= from) {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down the layers", pkg, from, imp, to)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no project imports found: go list output unexpected")
	}
}
