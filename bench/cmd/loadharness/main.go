// Command loadharness is agentlsp's load harness: K agent sessions over F
// files in R project roots, each editing and navigating in parallel for a
// fixed number of operations, against the runtime and, side by side in the
// same run, against baselines:
//
//   - direct: a minimal JSON-RPC client on transport.Conn, one connection
//     per root (the floor);
//   - runtime: agentlsp shared by every session (one server per root);
//   - per-session: one agentlsp runtime, hence one set of servers, per
//     session (what per-session integrations do);
//   - sleep: a client that waits a fixed time after each edit instead of
//     waiting for the edited version's diagnostics.
//
// It reports throughput, edit-to-fresh-diagnostics and navigation latency
// percentiles, errors by kind, peak memory of this process and of the
// servers, goroutines and server processes, as a markdown table on stdout
// and as JSON (--json FILE); progress goes to stderr. Servers: the fake
// (this binary re-executed; zero server cost, so it isolates the runtime),
// in a push and a pull variant, or gopls on a generated Go module.
//
//	go run ./bench/cmd/loadharness --server fake --sessions 64
//	go run ./bench/cmd/loadharness --server gopls --packages 50 --files 500
//
// docs/BENCHMARKS.md records the machine, the commands and the results.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"

	"github.com/agentlsp/agentlsp/test/fakelsp"
)

func main() {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakelsp.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	benchcmd.Main("loadharness", run)
}

// run parses args, runs every scenario and mode, and writes the report.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	dir, cleanup, err := o.workspace()
	if err != nil {
		return err
	}
	defer cleanup()
	if o.cpuprofile != "" {
		stopProfile, err := startProfile(o.cpuprofile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	rep := &Report{Machine: machine(o), Args: args, Params: o.params()}
	for _, sc := range o.scenarios() {
		runs, err := runScenario(ctx, o, dir, sc, stderr)
		if err != nil {
			return err
		}
		rep.Scenarios = append(rep.Scenarios, runs...)
	}
	rep.Checks = checks(rep, o)
	rep.HWMMB = selfHWMMB()
	if o.memprofile != "" {
		if err := writeAllocs(o.memprofile); err != nil {
			return err
		}
	}
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, rep); err != nil {
			return err
		}
	}
	return writeMarkdown(stdout, rep)
}

// startProfile starts a CPU profile of this process into path.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeAllocs writes the allocation profile of the run so far to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = pprof.Lookup("allocs").WriteTo(f, 0)
	return errors.Join(err, f.Close())
}

// scenario is one server (and fake variant).
type scenario struct {
	name    string
	server  string
	variant string
}

// runScenario generates the workload and runs every mode against it,
// --repeat times: each run is one Scenario with its own ratios.
func runScenario(ctx context.Context, o *options, dir string, sc scenario, log io.Writer) ([]Scenario, error) {
	spec, w, err := o.setup(dir, sc)
	if err != nil {
		return nil, err
	}
	var runs []Scenario
	for run := 1; run <= o.repeat; run++ {
		out := Scenario{Name: sc.name, Run: run}
		for _, mode := range o.modes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fmt.Fprintf(log, "loadharness: %s run %d: %s: %d sessions, %d roots, %d ops each...\n", sc.name, run, mode, o.sessions, len(w.roots), o.ops)
			res, err := runMode(ctx, o, spec, w, mode)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", sc.name, mode, err)
			}
			fmt.Fprintf(log, "loadharness: %s run %d: %s: %.0f ops/s, edit p50 %.2f ms p99 %.2f ms, nav p50 %.2f ms, errors %v\n",
				sc.name, run, mode, res.OpsPerSec, res.Edit.P50, res.Edit.P99, res.Nav.P50, res.Errors)
			for kind, sample := range res.ErrorSamples {
				fmt.Fprintf(log, "loadharness: %s run %d: %s: %s, e.g. %s\n", sc.name, run, mode, kind, sample)
			}
			if b := res.Barriers; b != nil && b.Taken > 0 {
				fmt.Fprintf(log, "loadharness: %s run %d: %s: %d barriers, %.2f ms each on average (%.2f until the watcher's batch); %d calls went at once\n",
					sc.name, run, mode, b.Taken, msOf(b.Spent)/float64(b.Taken), msOf(b.Reaching)/float64(b.Taken), b.Skipped)
			}
			out.Modes = append(out.Modes, res)
		}
		out.Ratios = ratios(out)
		runs = append(runs, out)
	}
	return runs, nil
}
