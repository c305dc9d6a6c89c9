package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// operations are the lsp tool's operations, in its schema's order.
var operations = []string{"goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol",
	"goToImplementation", "prepareCallHierarchy", "incomingCalls", "outgoingCalls"}

// phases are the parts of a run, in the order they run.
var phases = []string{"nav", "edit", "cold", "check", "peers"}

// options are the parsed flags.
type options struct {
	agentlsp    string   // binary; "" builds one
	relay       bool     // also measure raw gopls through lsprelay (nav)
	baseline    string   // another agentlsp binary measured beside it (nav); "" none
	gopls       string   // absolute path of gopls
	workspace   string   // existing directory; "" generates a module
	files       int      // .go files of the generated module
	at, impl    string   // FILE:LINE:COL targets in an existing workspace
	def         string   // FILE:LINE:COL, the right definition
	query       string   // workspaceSymbol query
	ops         []string // operations measured
	phases      []string // phases run
	calls       int      // measured calls per operation and client
	warmup      int      // unmeasured calls per operation and client
	edits       int      // edits on disk (break, restore, ...)
	cold        int      // cold starts per client
	checkRuns   int      // paired check runs
	callTimeout time.Duration
	diagTimeout time.Duration
	editDelay   time.Duration // between an edit's write and the MCP call
	edited      string        // the edited file: "closed" or "open" in both clients
	deadline    time.Duration
	mcpArgs     []string      // extra args of `agentlsp mcp`
	client      string        // MCP client: "sdk" or "lean"
	checkArgs   []string      // extra args of `agentlsp check`
	jsonPath    string        // "" none, "-" stdout
	peers       []peerSpec    // other MCP bridges (peers phase)
	peerEdits   int           // edits on disk per client in the peers phase
	peerWait    time.Duration // peers phase: longest wait for a right diagnostics answer
}

// parseOptions parses args; usage and errors go to stderr.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.agentlsp, "agentlsp", "", "agentlsp binary `PATH` (default: go build ./cmd/agentlsp into a temporary directory)")
	fs.StringVar(&o.gopls, "gopls", "", "gopls binary `PATH` (default: ~/.cache/agentlsp/bin/gopls, then PATH); agentlsp is configured to run the same one")
	fs.StringVar(&o.workspace, "workspace", "", "measure an existing `DIR` (copied per client) instead of a generated module; needs --at")
	fs.BoolVar(&o.relay, "relay", false, "nav: also measure raw gopls through lsprelay (a process that only relays bytes), the floor of any process between a client and gopls")
	fs.Func("baseline", "nav: also measure the agentlsp binary `PATH` (a baseline build), its calls interleaved with the others', and report the difference call by call",
		func(v string) (err error) { o.baseline, err = lookBinary(v); return err })
	fs.IntVar(&o.files, "files", 10, "`N` .go files in the generated module (at least 5)")
	fs.StringVar(&o.at, "at", "", "with --workspace: a call site `FILE:LINE:COL` (1-based, on the called name)")
	fs.StringVar(&o.impl, "impl", "", "with --workspace: an interface name `FILE:LINE:COL` for goToImplementation (default --at)")
	fs.StringVar(&o.def, "def", "", "with --workspace: the right definition `FILE:LINE:COL` (default: the raw server's answer)")
	fs.StringVar(&o.query, "query", "", "workspaceSymbol `QUERY` (default: the called name)")
	opList := fs.String("ops", strings.Join(operations, ","), "comma-separated `OPS` to measure")
	phaseList := fs.String("phases", strings.Join(phases, ","), "comma-separated `PHASES` to run: nav, edit, cold, check")
	fs.IntVar(&o.calls, "calls", 200, "measured calls per operation and client")
	fs.IntVar(&o.warmup, "warmup", 20, "unmeasured warm-up calls per operation and client")
	fs.IntVar(&o.edits, "edits", 20, "edits on disk per client, alternately breaking and restoring the call")
	fs.IntVar(&o.cold, "cold", 3, "cold starts per client")
	fs.IntVar(&o.checkRuns, "check-runs", 7, "paired runs of agentlsp check and gopls check")
	fs.DurationVar(&o.callTimeout, "call-timeout", 30*time.Second, "timeout of one call, and of one cold start")
	fs.DurationVar(&o.diagTimeout, "diag-timeout", 10*time.Second, "longest wait for the expected diagnostics after an edit (the raw client's, and agentlsp's gopls diagnosticsTimeout)")
	fs.DurationVar(&o.editDelay, "edit-delay", 0, "MCP client: wait `D` between writing a file and calling the diagnostics tool (counted in the edit's time)")
	fs.StringVar(&o.edited, "edited", "closed", "the edited file in both clients: `closed` (raw gopls hears of it by didChangeWatchedFiles, the MCP client never named it) or open (raw gopls has it open and gets didChange; the MCP client asked for its diagnostics once before the edits)")
	fs.DurationVar(&o.deadline, "deadline", 10*time.Minute, "the whole run stops after `D`")
	fs.StringVar(&o.client, "client", "sdk", "MCP client: `sdk` (the official SDK's) or lean (frames lines and decodes the answer's envelope, as the raw LSP client does, without the SDK's decoding)")
	mcpArgs := fs.String("mcp-args", "", "extra `ARGS` (space-separated) for `agentlsp mcp`, e.g. --shared")
	checkArgs := fs.String("check-args", "", "extra `ARGS` (space-separated) for `agentlsp check`")
	fs.Func("peer", "peers phase: also measure the MCP bridge `NAME=PATH` ("+strings.Join(peerNames(), ", ")+
		"; agentlsp=PATH: another agentlsp build); repeatable", o.addPeer)
	fs.IntVar(&o.peerEdits, "peer-edits", 6, "peers phase: edits on disk per client")
	fs.DurationVar(&o.peerWait, "peer-wait", 10*time.Second, "peers phase: how long a client's diagnostics are asked again until they show an edit")
	fs.StringVar(&o.jsonPath, "json", "", "also write the report as JSON to `FILE` (- for stdout, instead of the text)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("mcpbench: unexpected argument %q", fs.Arg(0))
	}
	o.ops = strings.Split(*opList, ",")
	o.phases = strings.Split(*phaseList, ",")
	o.mcpArgs = strings.Fields(*mcpArgs)
	o.checkArgs = strings.Fields(*checkArgs)
	return o, o.validate()
}

// validate checks the options and fills in found binaries.
func (o *options) validate() error {
	for _, op := range o.ops {
		if !slices.Contains(operations, op) {
			return fmt.Errorf("mcpbench: --ops: unknown operation %q (want %s)", op, strings.Join(operations, ", "))
		}
	}
	for _, p := range o.phases {
		if !slices.Contains(phases, p) {
			return fmt.Errorf("mcpbench: --phases: unknown phase %q (want %s)", p, strings.Join(phases, ", "))
		}
	}
	switch {
	case o.workspace == "" && o.files < 5:
		return errors.New("mcpbench: --files: at least 5")
	case o.workspace != "" && o.at == "":
		return errors.New("mcpbench: --workspace needs --at FILE:LINE:COL, a call site")
	case o.calls < 1 || o.warmup < 0 || o.edits < 0 || o.cold < 0 || o.checkRuns < 0 || o.peerEdits < 0:
		return errors.New("mcpbench: --calls must be positive, --warmup, --edits, --cold, --check-runs and --peer-edits not negative")
	case o.client != "sdk" && o.client != "lean":
		return fmt.Errorf("mcpbench: --client %q: want sdk or lean", o.client)
	case o.edited != "closed" && o.edited != "open":
		return fmt.Errorf("mcpbench: --edited %q: want closed or open", o.edited)
	case o.callTimeout <= 0 || o.diagTimeout <= 0 || o.deadline <= 0 || o.editDelay < 0 || o.peerWait <= 0:
		return errors.New("mcpbench: timeouts must be positive")
	}
	if o.gopls == "" {
		o.gopls = findGopls()
	}
	if o.gopls == "" {
		return errors.New("mcpbench: gopls not found: pass --gopls PATH (or run scripts/install-servers.sh gopls)")
	}
	abs, err := filepath.Abs(o.gopls)
	o.gopls = abs
	return err
}

// addPeer parses one --peer NAME=PATH.
func (o *options) addPeer(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if _, known := adapters[name]; !ok || !known && name != "agentlsp" {
		return fmt.Errorf("want NAME=PATH, NAME one of %s", strings.Join(peerNames(), ", "))
	}
	found, err := lookBinary(path)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	label := name
	for n := 2; slices.ContainsFunc(o.peers, func(p peerSpec) bool { return p.label == label }) || label == "agentlsp"; n++ {
		label = fmt.Sprintf("%s (%d)", name, n)
	}
	o.peers = append(o.peers, peerSpec{name: name, path: found, label: label})
	return nil
}

// peerNames are the names --peer takes.
func peerNames() []string {
	names := []string{"agentlsp"}
	for n := range adapters {
		names = append(names, n)
	}
	slices.Sort(names[1:])
	return names
}

// runs reports whether phase p is to run.
func (o *options) runs(p string) bool { return slices.Contains(o.phases, p) }

// findGopls looks where agentlsp installs servers, then in PATH.
func findGopls() string {
	cache := os.Getenv("AGENTLSP_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "agentlsp")
	}
	p := filepath.Join(cache, "bin", "gopls")
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	p, _ = exec.LookPath("gopls")
	return p
}

// lookBinary finds an executable (a path, or a name on PATH) and makes its
// path absolute.
func lookBinary(path string) (string, error) {
	found, err := exec.LookPath(path)
	if err == nil {
		found, err = filepath.Abs(found)
	}
	return found, err
}
