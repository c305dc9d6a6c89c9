// Command daemonbench measures the shared daemon against the embedded
// runtime on gopls, with the generated Go module of bench/gomod (500
// files by default), each side on its own copy:
//
//   - rtt: round trips of single messages sent to the router (one
//     answered at once, a SyncDocument, a hover FileRequest), through the
//     daemon and embedded;
//   - latency: Session.Hover and Session.Edit (a call broken, then
//     restored, each answered with fresh diagnostics) through agentlsp.Dial
//     against the same calls on agentlsp.Start, interleaved; p50 and p99;
//   - attach: agentlsp.Dial to the running daemon (connect, attach), and
//     `agentlsp query --shared hover` as a process, against `agentlsp
//     query hover` (which starts its own gopls);
//   - memory: --agents `agentlsp mcp` processes, each warmed with a hover,
//     against as many `agentlsp mcp --shared` and their daemon: resident
//     memory of every process (servers included).
//
// It builds the agentlsp command (or takes --bin), uses a runtime
// directory of its own, and stops the daemon it started.
//
//	go run ./bench/cmd/daemonbench
//	go run ./bench/cmd/daemonbench --files 500 --calls 400 --edits 60 --agents 10
//
// docs/BENCHMARKS.md ("Shared daemon") records a run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"

	"github.com/agentlsp/agentlsp/bench/gomod"
)

func main() { benchcmd.Main("daemonbench", run) }

// options are the command's flags.
type options struct {
	files, calls, edits, agents, attaches int
	bin                                   string
	phases                                string
	gap                                   time.Duration // quiet before each measured hover and round trip
}

// bench is one run's setup.
type bench struct {
	o        options
	tmp      string
	bin      string
	embedded string // workspace copy for the embedded runtime
	shared   string // workspace copy for the daemon
	t        gomod.Target
	log      io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("daemonbench", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.files, "files", 500, "`N` files in the generated module")
	fs.IntVar(&o.calls, "calls", 300, "hovers per side")
	fs.IntVar(&o.edits, "edits", 40, "edits per side (half break the call, half restore it)")
	fs.IntVar(&o.agents, "agents", 10, "agents for the memory phase")
	fs.IntVar(&o.attaches, "attaches", 20, "attaches measured")
	fs.StringVar(&o.bin, "bin", "", "the agentlsp command (default: built from this module)")
	fs.StringVar(&o.phases, "phases", "rtt,latency,attach,memory", "phases to run")
	fs.DurationVar(&o.gap, "gap", 0, "rtt and latency: pause `D` before each measured call (an agent's pace: the processes go idle between calls, and waking them costs each process hop)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process to `FILE`")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	b, cleanup, err := setup(ctx, o, stderr)
	defer cleanup()
	if err != nil {
		return err
	}
	gap := ""
	if o.gap > 0 {
		gap = fmt.Sprintf("; a pause of %s before each measured call", o.gap)
	}
	fmt.Fprintf(stdout, "# daemonbench\n\n%s; module of %d files; gopls%s\n\n", machine(), o.files, gap)
	if strings.Contains(o.phases, "rtt") {
		if err := b.rtt(ctx, stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.phases, "latency") {
		if err := b.latency(ctx, stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.phases, "attach") {
		if err := b.attach(ctx, stdout); err != nil {
			return err
		}
	}
	if strings.Contains(o.phases, "memory") {
		if err := b.memory(ctx, stdout); err != nil {
			return err
		}
	}
	return nil
}

// setup builds the command, generates two copies of the module and makes
// a runtime directory of the run's own.
func setup(ctx context.Context, o options, log io.Writer) (*bench, func(), error) {
	tmp, err := os.MkdirTemp("", "daemonbench-")
	if err != nil {
		return nil, func() {}, err
	}
	tmp, _ = filepath.EvalSymlinks(tmp)
	b := &bench{o: o, tmp: tmp, bin: o.bin, embedded: filepath.Join(tmp, "embedded"), shared: filepath.Join(tmp, "shared"), log: log}
	stopDaemons, err := benchcmd.PrivateDaemons(tmp)
	cleanup := func() {
		stopDaemons()
		os.RemoveAll(tmp)
	}
	if err != nil {
		return b, cleanup, err
	}
	if b.bin == "" {
		b.bin = filepath.Join(tmp, "agentlsp")
		fmt.Fprintln(log, "daemonbench: building agentlsp")
		if out, err := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", b.bin, "github.com/agentlsp/agentlsp/cmd/agentlsp").CombinedOutput(); err != nil {
			return b, cleanup, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	for _, dir := range []string{b.embedded, b.shared} {
		if b.t, err = gomod.Generate(dir, o.files); err != nil {
			return b, cleanup, err
		}
	}
	return b, cleanup, nil
}

// stats are the percentiles of durations, in milliseconds.
type stats struct{ p50, p99, mean float64 }

func statsOf(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return stats{p50: ms(s[len(s)/2]), p99: ms(s[min(len(s)-1, len(s)*99/100)]), mean: ms(sum / time.Duration(len(s)))}
}

// machine describes the machine.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name\t: "); ok {
				cpu = v
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s, %d CPUs%s", cpu, numCPU(), load)
}
