package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// options are the parsed flags.
type options struct {
	agentlsp    string // binary; "" builds one
	gopls       string // absolute paths of the servers agentlsp is configured with
	pyright     string
	clients     int
	concurrency int
	duration    time.Duration
	killEvery   time.Duration // 0: no kills
	killKinds   []string      // which servers may be killed
	maxRestarts int           // the servers' crash budget; 0: agentlsp's default
	warmup      time.Duration // memory samples before this are not in the slope
	sampleEvery time.Duration
	callTimeout time.Duration
	editDelay   time.Duration // between a write and its diagnostics call
	deadline    time.Duration // the whole run
	grace       time.Duration // how long a process may outlive the clients' exit
	terminate   time.Duration // SDK close: wait after closing stdin before SIGTERM
	flatMB      float64       // largest slope (MB/min per process) called flat
	seed        uint64
	jsonPath    string // "" none, "-" stdout instead of the text
	showSamples int    // wrong and unanswered calls shown in the text report
}

// parseOptions parses args; usage and errors go to stderr.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("mcpload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.agentlsp, "agentlsp", "", "agentlsp binary `PATH` (default: go build ./cmd/agentlsp into the run's temporary directory)")
	fs.StringVar(&o.gopls, "gopls", "", "gopls binary `PATH` (default: ~/.cache/agentlsp/bin/gopls, then PATH)")
	fs.StringVar(&o.pyright, "pyright", "", "pyright-langserver `PATH` (default: ~/.cache/agentlsp/npm/node_modules/.bin/pyright-langserver, then PATH)")
	fs.IntVar(&o.clients, "clients", 8, "`N` agentlsp mcp processes, each with its own client session")
	fs.IntVar(&o.concurrency, "concurrency", 16, "`N` concurrent calls per client")
	fs.DurationVar(&o.duration, "duration", 5*time.Minute, "how long calls are made")
	fs.DurationVar(&o.killEvery, "kill-every", 0, "SIGKILL a running gopls or pyright (a child of one agentlsp process, at random) every `D`; 0: never")
	kinds := fs.String("kill", "gopls,pyright", "with --kill-every, the `SERVERS` that may be killed (comma-separated: gopls, pyright)")
	fs.IntVar(&o.maxRestarts, "max-restarts", 0, "configure the servers' crash budget (maxRestarts, crashes per window before broken) to `N` (default: agentlsp's, 5)")
	fs.DurationVar(&o.warmup, "warmup", 0, "memory samples before `D` into the run are left out of the slope (default: a quarter of --duration, at most 1m)")
	fs.DurationVar(&o.sampleEvery, "sample-every", 0, "sample RSS and threads every `D` (default: --duration/20, between 1s and 5s)")
	fs.DurationVar(&o.callTimeout, "call-timeout", 75*time.Second, "a call without an answer after `D` is unanswered (agentlsp bounds each call at 60s)")
	fs.DurationVar(&o.editDelay, "edit-delay", 0, "wait `D` between writing a file and asking for its diagnostics (counted in the edit's latency)")
	fs.DurationVar(&o.deadline, "deadline", 0, "the whole run stops after `D` (default: --duration + 5m)")
	fs.DurationVar(&o.grace, "grace", 3*time.Second, "a run's process still alive `D` after every agentlsp exited is left over")
	fs.DurationVar(&o.terminate, "terminate", 5*time.Second, "closing a client: wait `D` after closing agentlsp's stdin before SIGTERM, then as long before SIGKILL")
	fs.Float64Var(&o.flatMB, "flat-mb", 2, "an RSS slope up to `MB` per minute per process is called flat")
	fs.Uint64Var(&o.seed, "seed", 0, "random `SEED` for the call order and the kills (default: from the clock)")
	fs.StringVar(&o.jsonPath, "json", "", "also write the report as JSON to `FILE` (- for stdout, instead of the text)")
	fs.IntVar(&o.showSamples, "show", 20, "show up to `N` wrong and unanswered calls in the text report")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("mcpload: unexpected argument %q", fs.Arg(0))
	}
	o.killKinds = strings.Split(*kinds, ",")
	return o, o.validate()
}

// validate checks the options, fills in defaults and finds the servers.
func (o *options) validate() error {
	switch {
	case o.maxRestarts < 0:
		return errors.New("mcpload: --max-restarts must not be negative")
	case o.clients < 1 || o.concurrency < 1:
		return errors.New("mcpload: --clients and --concurrency must be at least 1")
	case o.duration <= 0 || o.callTimeout <= 0 || o.grace < 0 || o.terminate <= 0:
		return errors.New("mcpload: --duration, --call-timeout and --terminate must be positive, --grace not negative")
	case o.killEvery < 0 || o.warmup < 0 || o.sampleEvery < 0 || o.editDelay < 0 || o.deadline < 0:
		return errors.New("mcpload: durations must not be negative")
	}
	for _, k := range o.killKinds {
		if k != "gopls" && k != "pyright" {
			return fmt.Errorf("mcpload: --kill: unknown server %q (want gopls, pyright)", k)
		}
	}
	if o.warmup == 0 {
		o.warmup = min(o.duration/4, time.Minute)
	}
	if o.sampleEvery == 0 {
		o.sampleEvery = max(time.Second, min(5*time.Second, o.duration/20))
	}
	if o.deadline == 0 {
		o.deadline = o.duration + 5*time.Minute
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	var err error
	if o.gopls, err = findServer(o.gopls, "gopls", "bin"); err != nil {
		return err
	}
	o.pyright, err = findServer(o.pyright, "pyright-langserver", filepath.Join("npm", "node_modules", ".bin"))
	return err
}

// findServer returns the absolute path of a server: given, or in
// agentlsp's server cache, or in PATH.
func findServer(given, name, sub string) (string, error) {
	if given == "" {
		cache := os.Getenv("AGENTLSP_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "agentlsp")
		}
		if p := filepath.Join(cache, sub, name); isFile(p) {
			given = p
		} else if p, err := exec.LookPath(name); err == nil {
			given = p
		}
	}
	if given == "" || !isFile(given) {
		return "", fmt.Errorf("mcpload: %s not found: pass its path, or run scripts/install-servers.sh", name)
	}
	return filepath.Abs(given)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
