package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// sharedClients is how many agents share one daemon in the tests.
const sharedClients = 10

// toolCall is one call of the MCP tools.
type toolCall struct {
	tool string
	args map[string]any
}

func (c toolCall) String() string { b, _ := json.Marshal(c.args); return c.tool + string(b) }

func lspCall(op, file string, line int, symbol string) toolCall {
	args := map[string]any{"operation": op, "filePath": file}
	if line > 0 {
		args["line"] = line
	}
	if symbol != "" {
		args["symbol"] = symbol
	}
	return toolCall{"lsp", args}
}

// sharedCalls is every operation of both tools, on gopls and pyright.
var sharedCalls = []toolCall{
	{"diagnostics", map[string]any{"files": []string{"gonav/report.go", "gonav/shapes.go", "pynav/report.py", "pynav/shapes.py"}}},
	lspCall("goToDefinition", "gonav/report.go", 7, "Total"),
	lspCall("findReferences", "gonav/total.go", 4, "Total"),
	lspCall("hover", "gonav/report.go", 7, "Total"),
	lspCall("goToImplementation", "gonav/shapes.go", 9, "Shape"),
	lspCall("prepareCallHierarchy", "gonav/total.go", 4, "Total"),
	lspCall("incomingCalls", "gonav/report.go", 7, "Total"),
	lspCall("outgoingCalls", "gonav/total.go", 4, "Total"),
	lspCall("documentSymbol", "gonav/shapes.go", 0, ""),
	lspCall("goToDefinition", "pynav/report.py", 8, "total"),
	lspCall("findReferences", "pynav/shapes.py", 33, "total"),
	lspCall("hover", "pynav/report.py", 8, "total"),
	lspCall("prepareCallHierarchy", "pynav/shapes.py", 33, "total"),
	lspCall("incomingCalls", "pynav/shapes.py", 33, "total"),
	lspCall("outgoingCalls", "pynav/report.py", 12, "summary"),
	lspCall("documentSymbol", "pynav/shapes.py", 0, ""),
	{"lsp", map[string]any{"operation": "workspaceSymbol", "query": "Summary"}},
}

// commandBuild is the agentlsp command, built once per test binary: no
// test changes it (TestDialLostDaemonSaysWhy removes a copy), and every
// test building its own spent 5 to 15 s linking it (the race-built one)
// on a loaded 2-core machine.
type commandBuild struct {
	flags []string
	once  sync.Once
	dir   string
	err   error
}

var (
	plainBuild = &commandBuild{}
	raceBuild  = &commandBuild{flags: raceFlags} // with -race when the tests run with it
)

// path builds the command on the first call, and returns where it is.
func (b *commandBuild) path(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "agentlsp-e2e-bin")
		if b.err != nil {
			return
		}
		args := append(append([]string{"build", "-buildvcs=false"}, b.flags...), "-o", filepath.Join(b.dir, "agentlsp"), "github.com/agentlsp/agentlsp/cmd/agentlsp")
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 exitcode=66")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return filepath.Join(b.dir, "agentlsp")
}

// remove removes the command built, if it was.
func (b *commandBuild) remove() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

// buildAgentlsp is the command, built with -race when the tests run with it.
func buildAgentlsp(t *testing.T) string { return raceBuild.path(t) }

// agentlspBinary is the command built without -race (a race-built command
// is several times slower).
func agentlspBinary(t *testing.T) string { return plainBuild.path(t) }

// sharedWorkspace is a workspace with a Go and a Python project, in a
// runtime directory of the test's own.
func sharedWorkspace(t *testing.T) string {
	t.Helper()
	testenv.ServerBinary(t, "gopls")
	testenv.ServerBinary(t, "pyright-langserver")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	testenv.CopyInto(t, filepath.Join("..", "testdata", "gonav"), filepath.Join(ws, "gonav"))
	testenv.CopyInto(t, filepath.Join("..", "testdata", "pynav"), filepath.Join(ws, "pynav"))
	return ws
}

// mcpClient starts `agentlsp mcp` (with --shared if shared) and connects.
func mcpClient(t *testing.T, ctx context.Context, bin, ws string, shared bool) *sdk.ClientSession {
	t.Helper()
	args := []string{"mcp", "--workspace", ws}
	if shared {
		args = append(args, "--shared")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = raceWatch(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to agentlsp %v: %v", args, err)
	}
	return cs
}

// answer calls a tool and returns its answer as compared: the structured
// content without "indexing" (whether a server was still indexing is
// timing), or the error text.
func answer(ctx context.Context, cs *sdk.ClientSession, c toolCall) (string, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		return "", err
	}
	if res.IsError {
		var text []string
		for _, ct := range res.Content {
			if tc, ok := ct.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return "", fmt.Errorf("tool error: %s", strings.Join(text, "\n"))
	}
	var doc map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", err
	}
	delete(doc, "indexing")
	if c.args["operation"] == "workspaceSymbol" {
		// Servers answer a workspace request in the order they started,
		// which concurrent first uses decide: compare as sets.
		for _, key := range []string{"servers", "symbols"} {
			if list, ok := doc[key].([]any); ok {
				sort.Slice(list, func(i, j int) bool {
					a, _ := json.Marshal(list[i])
					b, _ := json.Marshal(list[j])
					return string(a) < string(b)
				})
			}
		}
	}
	out, _ := json.MarshalIndent(doc, "", " ")
	return string(out), nil
}

// answers waits until the servers are ready (diagnostics of every file
// fresh: a cold pyright can take longer than the diagnostics timeout),
// then makes every call in order.
func answers(t *testing.T, ctx context.Context, cs *sdk.ClientSession) []string {
	t.Helper()
	testenv.Eventually(t, 3*time.Minute, "fresh diagnostics of every file", func() bool {
		a, err := answer(ctx, cs, sharedCalls[0])
		return err == nil && !notFresh.MatchString(a)
	})
	out := make([]string, len(sharedCalls))
	for i, c := range sharedCalls {
		a, err := answer(ctx, cs, c)
		if err != nil {
			t.Errorf("%v: %v", c, err)
		}
		out[i] = a
	}
	return out
}

// serverProcesses counts the live gopls and pyright processes the test
// started (process group leaders: a server runs in a group of its own).
func serverProcesses() (gopls, pyright int) {
	for _, pid := range testenv.Processes() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
			continue
		}
		switch args := strings.Split(string(cmdline), "\x00"); {
		case filepath.Base(args[0]) == "gopls":
			gopls++
		case strings.Contains(string(cmdline), "pyright-langserver"):
			pyright++
		}
	}
	return gopls, pyright
}

// daemonStatus is `agentlsp status --json`'s daemons.
func daemonStatus(t *testing.T, bin string) []struct {
	PID     int      `json:"pid"`
	Clients int      `json:"clients"`
	Servers []string `json:"servers"`
	HTTP    string   `json:"http"`
	Token   string   `json:"token"`
} {
	t.Helper()
	out, err := exec.Command(bin, "status", "--json").Output()
	if err != nil {
		t.Fatalf("agentlsp status: %v", err)
	}
	var doc struct {
		Daemons []struct {
			PID     int      `json:"pid"`
			Clients int      `json:"clients"`
			Servers []string `json:"servers"`
			HTTP    string   `json:"http"`
			Token   string   `json:"token"`
		} `json:"daemons"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("agentlsp status --json: %v\n%s", err, out)
	}
	return doc.Daemons
}

// raceWatch returns a writer for a process's stderr that copies it to the
// test's and fails the test if the race detector reported a race in it.
func raceWatch(t *testing.T) io.Writer {
	var buf testenv.Buffer
	t.Cleanup(func() {
		out := buf.String()
		if i := strings.Index(out, "WARNING: DATA RACE"); i >= 0 {
			t.Errorf("a data race in a process of the test:\n%s", out[i:])
		}
	})
	return io.MultiWriter(&buf, os.Stderr)
}

// checkDaemonLogs fails the test if a daemon's log reports a data race.
func checkDaemonLogs(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "agentlsp", "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if i := bytes.Index(b, []byte("WARNING: DATA RACE")); i >= 0 {
			t.Errorf("a data race in a daemon (%s):\n%s", l, b[i:])
		}
	}
}

// stopDaemons stops every daemon of the test (SIGTERM) and waits.
func stopDaemons(t *testing.T, bin string) {
	defer checkDaemonLogs(t)
	for _, d := range daemonStatus(t, bin) {
		syscall.Kill(d.PID, syscall.SIGTERM)
	}
	testenv.Eventually(t, 30*time.Second, "the daemons exit", func() bool {
		g, p := serverProcesses()
		return len(daemonStatus(t, bin)) == 0 && g == 0 && p == 0
	})
}

// TestSharedDaemonTenMCPClients: ten `agentlsp mcp --shared` started at
// once share one daemon, one gopls and one pyright, and answer every
// operation as an unshared `agentlsp mcp` does; the daemon killed with
// SIGKILL while all ten work costs time, not answers.
func TestSharedDaemonTenMCPClients(t *testing.T) {
	ws := sharedWorkspace(t)
	bin := buildAgentlsp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	alone := mcpClient(t, ctx, bin, ws, false)
	want := answers(t, ctx, alone)
	alone.Close()
	testenv.Eventually(t, 30*time.Second, "the unshared servers exit", func() bool {
		g, p := serverProcesses()
		return g == 0 && p == 0
	})

	clients := make([]*sdk.ClientSession, sharedClients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i] = mcpClient(t, ctx, bin, ws, true)
		}()
	}
	wg.Wait()
	defer stopDaemons(t, bin)
	defer func() {
		for _, cs := range clients {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	if t.Failed() {
		return
	}
	got := make([][]string, sharedClients)
	for i, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = answers(t, ctx, cs)
		}()
	}
	wg.Wait()
	for i := range got {
		for j, c := range sharedCalls {
			if !agrees(c, want[j], got[i][j]) {
				t.Errorf("client %d: %v differs from the unshared answer:\n%s", i, c, cmp.Diff(want[j], got[i][j]))
			}
		}
	}
	daemons := daemonStatus(t, bin)
	if g, p := serverProcesses(); len(daemons) != 1 || g != 1 || p != 1 || daemons[0].Clients != sharedClients {
		t.Fatalf("%d daemons (%+v), %d gopls, %d pyright; want one daemon with %d clients, one gopls, one pyright",
			len(daemons), daemons, g, p, sharedClients)
	}
	killWhileWorking(t, ctx, clients, want, daemons[0].PID)
	// Then the next answers are right, fresh ones included.
	for j, a := range answers(t, ctx, clients[0]) {
		if a != want[j] {
			t.Errorf("after the kill: %v differs from the unshared answer:\n%s", sharedCalls[j], cmp.Diff(want[j], a))
		}
	}
	after := daemonStatus(t, bin)
	if g, p := serverProcesses(); len(after) != 1 || after[0].PID == daemons[0].PID || g != 1 || p != 1 {
		t.Errorf("after the kill: daemons %+v, %d gopls, %d pyright; want one new daemon, one gopls, one pyright", after, g, p)
	}
}
