package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestPeersAgainstItself runs the peers phase with another agentlsp as
// the peer (the same build): every call of both clients answered right,
// every edit's first answer right, a cold start each, and the table in
// the report. The other bridges are not installed here; their adapters
// are checked on their recorded answers below.
func TestPeersAgainstItself(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, err := benchcmd.BuildAgentlsp(ctx, "test", t.TempDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	args := []string{"--files", "5", "--calls", "3", "--warmup", "1", "--phases", "peers", "--cold", "1", "--peer-edits", "2",
		"--agentlsp", bin, "--peer", "agentlsp=" + bin, "--deadline", "150s", "--json", jsonPath}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	r := readReport(t, jsonPath).Peers
	if r == nil {
		t.Fatal("no peers phase in the report")
	}
	if got := strings.Join(r.Clients, ","); got != "agentlsp,agentlsp (2)" {
		t.Errorf("clients %q, want the build measured, then the peer", got)
	}
	if len(r.Ops) != len(peerOps) {
		t.Errorf("%d operations, want %d", len(r.Ops), len(peerOps))
	}
	for _, o := range r.Ops {
		for c, s := range o.Sides {
			if s == nil {
				t.Errorf("%s: client %d has no side", o.Op, c)
				continue
			}
			checkSide(t, o.Op+" "+r.Clients[c], *s, 3)
		}
	}
	if len(r.EditFirst) != 2 || len(r.EditRight) != 2 || len(r.Cold) != 2 {
		t.Fatalf("edits %d and %d, cold %d, want one per client", len(r.EditFirst), len(r.EditRight), len(r.Cold))
	}
	for c, name := range r.Clients {
		checkSide(t, "first answer after an edit, "+name, r.EditFirst[c], 2)
		checkSide(t, "right answer after an edit, "+name, r.EditRight[c], 2)
		checkSide(t, "cold start, "+name, r.Cold[c], 1)
	}
	if !strings.Contains(stdout.String(), "| | agentlsp | agentlsp (2) |") {
		t.Errorf("text report lacks the peers table:\n%s", stdout.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// peerTarget is the generated module's target, in the workspace copy the
// recorded answers came from.
var peerTarget = target{
	Call: loc{Path: "p4/p4.go", Line: 13, Column: 10},
	Def:  loc{Path: "p3/p3.go", Line: 12, Column: 6},
	Name: "Run",
}

const peerWS = "/tmp/peerprobe/ws"

// TestAdaptersReadRecordedAnswers: each adapter's calls and checks on the
// answers mcp-language-server v0.1.1 and cclsp 0.7.0 gave on the
// generated module (recorded 2026-11-24; the two "no ..." answers are
// their sources' messages), right ones and wrong ones.
func TestAdaptersReadRecordedAnswers(t *testing.T) {
	for _, c := range []struct {
		peer, op, text string
		right          bool
	}{
		{"mcp-language-server", "goToDefinition", "---\n\nSymbol: p3.Run\nFile: /tmp/peerprobe/ws/p3/p3.go\nKind: Function\nContainer Name: example.com/bench/p3\nRange: L12:C1 - L15:C2\n\n12|func Run(x int) int {\n", true},
		{"mcp-language-server", "goToDefinition", "---\n\nSymbol: p4.Run\nFile: /tmp/peerprobe/ws/p4/p4.go\nKind: Function\nRange: L12:C1 - L15:C2\n", false},
		{"mcp-language-server", "findReferences", "---\n\n/tmp/peerprobe/ws/p4/p4.go\nReferences in File: 1\nAt: L13:C10\n\n12|func Run(x int) int {\n13|\tv := p3.Run(x)\n", true},
		{"mcp-language-server", "findReferences", "No references found for symbol: p3.Run", false},
		{"mcp-language-server", "hover", "```go\nfunc p3.Run(x int) int\n```\n\n---\n\nRun is the entry point of package p3.\n", true},
		{"mcp-language-server", "hover", "No hover information available for this position on the following line:\n\tv := p3.Run(x)\n", false},
		{"cclsp", "goToDefinition", "Results for Run (function) at /tmp/peerprobe/ws/p3/p3.go:12:6:\n/tmp/peerprobe/ws/p3/p3.go:12:6", true},
		// What it answers from the call site: the file's own Run.
		{"cclsp", "goToDefinition", "Results for Run (function) at /tmp/peerprobe/ws/p4/p4.go:12:6:\n/tmp/peerprobe/ws/p4/p4.go:12:6", false},
		{"cclsp", "findReferences", "Results for Run (function) at /tmp/peerprobe/ws/p3/p3.go:12:6:\n/tmp/peerprobe/ws/p3/p3.go:12:6\n/tmp/peerprobe/ws/p4/p4.go:13:10", true},
		{"cclsp", "findReferences", "Results for Run (function) at /tmp/peerprobe/ws/p2/p2.go:12:6:\n/tmp/peerprobe/ws/p2/p2.go:12:6\n/tmp/peerprobe/ws/p3/p3.go:13:10", false},
		{"cclsp", "hover", "Hover information at /tmp/peerprobe/ws/p4/p4.go:13:10:\n\n```go\nfunc p3.Run(x int) int\n```\n", true},
	} {
		err := adapters[c.peer].check(c.op, c.text, peerTarget, peerWS)
		if (err == nil) != c.right || err != nil && !isWrong(err) {
			t.Errorf("%s %s on %.60q: %v, want right %v", c.peer, c.op, c.text, err, c.right)
		}
	}
	for _, c := range []struct {
		peer, text string
		has        bool
	}{
		{"mcp-language-server", "/tmp/peerprobe/ws/p4/p4.go\nDiagnostics in File: 1\nERROR at L13:C10: undefined: p3.Run (Source: compiler, Code: UndeclaredImportedName)\n", true},
		{"mcp-language-server", "No diagnostics found for /tmp/peerprobe/ws/p4/p4.go", false},
		{"cclsp", "Found 1 diagnostic in /tmp/peerprobe/ws/p4/p4.go:\n\n\u2022 Error [UndeclaredImportedName] (compiler): undefined: p3.Run\n  Location: Line 13, Column 10 to Line 13, Column 13", true},
		{"cclsp", "No diagnostics found for /tmp/peerprobe/ws/p4/p4.go. The file has no errors, warnings, or hints.", false},
	} {
		if got := adapters[c.peer].hasError(c.text, peerTarget, peerWS); got != c.has {
			t.Errorf("%s diagnostics %.60q: error on the call's line %v, want %v", c.peer, c.text, got, c.has)
		}
	}
}

// TestAdapterCalls: the tool calls each adapter makes, by name and file.
func TestAdapterCalls(t *testing.T) {
	for _, c := range []struct {
		peer, op, tool, arg string
		want                any
	}{
		{"mcp-language-server", "goToDefinition", "definition", "symbolName", "p3.Run"},
		{"mcp-language-server", "hover", "hover", "filePath", peerWS + "/p4/p4.go"},
		{"cclsp", "goToDefinition", "find_definition", "file_path", peerWS + "/p4/p4.go"},
		{"cclsp", "findReferences", "find_references", "file_path", peerWS + "/p3/p3.go"},
		{"cclsp", "hover", "get_hover", "character", 10},
	} {
		tool, args, ok := adapters[c.peer].op(c.op, peerTarget, peerWS)
		if !ok || tool != c.tool || args[c.arg] != c.want {
			t.Errorf("%s %s: %s %v (ok %v), want %s with %s %v", c.peer, c.op, tool, args, ok, c.tool, c.arg, c.want)
		}
	}
	if _, _, ok := adapters["mcp-language-server"].op("documentSymbol", peerTarget, peerWS); ok {
		t.Error("mcp-language-server has no documentSymbol tool, but its adapter maps one")
	}
}

// TestPeerOption: --peer names a known bridge and an existing binary.
func TestPeerOption(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"nobridge=/bin/true", "NAME one of agentlsp, cclsp, mcp-language-server"},
		{"cclsp", "want NAME=PATH"},
		{"cclsp=/nonexistent/cclsp", "cclsp: exec: \"/nonexistent/cclsp\""},
	} {
		_, err := parseOptions([]string{"--peer", c.arg}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--peer %s: %v, want an error with %q", c.arg, err, c.want)
		}
	}
	o, err := parseOptions([]string{"--peer", "cclsp=/bin/true", "--peer", "cclsp=/bin/true"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.peers) != 2 || o.peers[0].label != "cclsp" || o.peers[1].label != "cclsp (2)" {
		t.Errorf("peers %+v, want cclsp and cclsp (2)", o.peers)
	}
}
