package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// options are the command line. Zero values never reach the run: every
// flag has its default.
type options struct {
	server      string
	variants    []string
	modes       []string
	sessions    int
	roots       int
	files       int
	packages    int
	lines       int
	ops         int
	navsPerEdit int
	settle      time.Duration
	sleep       time.Duration
	diagTimeout time.Duration
	coldTimeout time.Duration
	pushDelay   time.Duration
	sample      time.Duration
	jsonPath    string
	workdir     string
	gopls       string
	module      string
	debugLog    string
	repeat      int
	cpuprofile  string
	memprofile  string
}

// parseOptions parses and checks the flags; usage goes to stderr.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("loadharness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.server, "server", "fake", "language server: fake or gopls")
	variants := fs.String("variants", "push,pull", "fake variants: push (versioned pushes), pull (--pull --no-push)")
	modes := fs.String("modes", "direct,runtime,per-session,sleep", "modes to run, in order")
	fs.IntVar(&o.sessions, "sessions", 64, "concurrent agent sessions (K)")
	fs.IntVar(&o.roots, "roots", 4, "project roots (R): fake roots or Go modules")
	fs.IntVar(&o.files, "files", 256, "files in all (F)")
	fs.IntVar(&o.packages, "packages", 50, "gopls: packages in all")
	fs.IntVar(&o.lines, "lines", 60, "lines per file (about, for gopls)")
	fs.IntVar(&o.ops, "ops", 40, "warm operations per session")
	fs.IntVar(&o.navsPerEdit, "navs-per-edit", 1, "navigations after each edit")
	fs.IntVar(&o.repeat, "repeat", 1, "run the modes this many times, interleaved (runs are reported apart; targets use the median ratio and the worst run)")
	fs.DurationVar(&o.settle, "settle", 150*time.Millisecond, "settle window after a push (runtime and direct client)")
	fs.DurationVar(&o.sleep, "sleep", 500*time.Millisecond, "the fixed-sleep client's wait after each edit")
	fs.DurationVar(&o.diagTimeout, "diag-timeout", 3*time.Second, "wait for diagnostics after a warm edit")
	fs.DurationVar(&o.coldTimeout, "cold-timeout", 2*time.Minute, "wait for diagnostics after the first edit (servers starting)")
	fs.DurationVar(&o.pushDelay, "push-delay", 0, "fake: delay every publication by this much")
	fs.DurationVar(&o.sample, "sample", 50*time.Millisecond, "sampling interval of memory, goroutines and servers")
	fs.StringVar(&o.jsonPath, "json", "", "also write the report as JSON to this `file`")
	fs.StringVar(&o.workdir, "workdir", "", "generate the workspace here (default: a temporary directory, removed)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run (this process) to this `file`")
	fs.StringVar(&o.memprofile, "memprofile", "", "write an allocation profile of the whole run (this process) to this `file`")
	fs.StringVar(&o.module, "module", "", "gopls: edit a copy of this real Go `module` instead of a generated one (--files files of it, in different packages; --roots and --packages do not apply)")
	fs.StringVar(&o.debugLog, "debug-log", "", "write the runtime's debug log (runtime modes) to this `file`, to see why an answer was wrong")
	fs.StringVar(&o.gopls, "gopls", "", "gopls binary (default: the agentlsp server cache, then PATH)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.variants, o.modes = splitList(*variants), splitList(*modes)
	return o, o.check()
}

func (o *options) check() error {
	switch {
	case o.server != "fake" && o.server != "gopls":
		return fmt.Errorf("--server %q: want fake or gopls", o.server)
	case o.sessions < 1 || o.roots < 1 || o.files < o.roots || o.ops < 1 || o.navsPerEdit < 0 || o.lines < 1 || o.repeat < 1:
		return errors.New("--sessions, --roots, --ops, --lines and --repeat must be positive, --files at least --roots")
	case o.module != "" && o.server != "gopls":
		return errors.New("--module needs --server gopls")
	case o.module != "" && o.roots != 1:
		return errors.New("--module is one root: leave --roots at 1")
	case o.server == "gopls" && o.packages < o.roots:
		return errors.New("--packages must be at least --roots")
	case len(o.modes) == 0:
		return errors.New("--modes: none given")
	}
	for _, m := range o.modes {
		if m != modeDirect && m != modeRuntime && m != modePerSession && m != modeSleep {
			return fmt.Errorf("--modes: unknown mode %q", m)
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// scenarios lists what to run: each fake variant, or gopls.
func (o *options) scenarios() []scenario {
	if o.server == "gopls" {
		return []scenario{{name: "gopls", server: "gopls"}}
	}
	var out []scenario
	for _, v := range o.variants {
		out = append(out, scenario{name: "fake/" + v, server: "fake", variant: v})
	}
	return out
}

// workspace is the directory workloads are generated in (symlinks
// resolved, as the runtime reports paths).
func (o *options) workspace() (string, func(), error) {
	if o.workdir != "" {
		if err := os.MkdirAll(o.workdir, 0o755); err != nil {
			return "", nil, err
		}
		dir, err := filepath.EvalSymlinks(o.workdir)
		return dir, func() {}, err
	}
	dir, err := os.MkdirTemp("", "loadharness")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return real, cleanup, nil
}

// setup returns the scenario's server and generates its workload in its
// own subdirectory of dir.
func (o *options) setup(dir string, sc scenario) (serverSpec, *workload, error) {
	sub := filepath.Join(dir, strings.ReplaceAll(sc.name, "/", "-"))
	if sc.server == "gopls" {
		spec, err := goplsSpec(o.gopls)
		if err != nil {
			return spec, nil, err
		}
		if o.module != "" {
			w, err := moduleWorkload(o.module, sub, o.files)
			return spec, w, err
		}
		w, err := goWorkload(sub, o.roots, o.packages, o.files, o.lines)
		return spec, w, err
	}
	spec, err := fakeSpec(sc.variant, o.pushDelay)
	if err != nil {
		return spec, nil, err
	}
	w, err := fakeWorkload(sub, o.roots, o.files, o.lines)
	return spec, w, err
}

// params are the options as the report shows them.
func (o *options) params() Params {
	p := Params{
		Server: o.server, Sessions: o.sessions, Roots: o.roots, Files: o.files, Lines: o.lines,
		OpsPerSess: o.ops, NavsPerEdit: o.navsPerEdit, SettleMs: msOf(o.settle), SleepMs: msOf(o.sleep),
		DiagTimeout: msOf(o.diagTimeout), PushDelayMs: msOf(o.pushDelay), Modes: o.modes,
		SampleMillis: msOf(o.sample), Repeat: o.repeat,
	}
	if o.server == "gopls" {
		p.Packages, p.Module = o.packages, o.module
	} else {
		p.Variants = o.variants
	}
	perRoot := max(1, o.files/o.roots)
	p.SharedFiles = (o.sessions+o.roots-1)/o.roots > perRoot
	return p
}

// machine describes this machine and toolchain.
func machine(o *options) Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	var kb float64
	fmt.Sscanf(procField("/proc/meminfo", "MemTotal"), "%f", &kb)
	m.MemoryMB = kb / 1024
	if o.server == "gopls" {
		if spec, err := goplsSpec(o.gopls); err == nil {
			out, _ := exec.Command(spec.def.Command, "version").Output()
			m.Server = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		}
	}
	return m
}

// procField returns the value of the first "name: value" line of a /proc
// file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
