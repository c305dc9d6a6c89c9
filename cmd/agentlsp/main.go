// Command agentlsp is the command-line and MCP entry point of agentlsp:
// diagnostics like a linter (check), one navigation request (query), what
// is configured and installed (servers), and an MCP server over stdio
// (mcp).
//
// main is a thin wrapper around run, which tests call with buffers. Every
// subcommand starts its own runtime and shuts it down (bounded) before run
// returns, also on SIGINT, SIGTERM or SIGHUP; logs go to stderr only, so that in mcp mode stdout carries
// nothing but the protocol. The only goroutines the command starts itself
// are check's per-file workers and its progress reporter, both joined
// before the subcommand returns.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/agentlsp/agentlsp/gcfloor"
)

// gcHeadroom is the least allocation between two garbage collections
// (package gcfloor): with it, a navigation call through `agentlsp mcp`
// meets a collection once in hundreds of calls rather than once in tens,
// which is what held its p99 over twice its p50. It costs at most this
// much memory more than GOGC=100; GOGC in the environment turns it off.
const gcHeadroom = 32 << 20

func main() {
	stopFloor := gcfloor.Start(gcHeadroom)
	stopProfile := startProfile(os.Getenv(profileEnv), os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	code := exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	stop()
	stopProfile()
	stopFloor()
	os.Exit(code)
}

// stopSignals end a command as its end would: every subcommand runs under
// a context they cancel, and shuts its servers down (their process groups
// and temporary directories with them) before it exits. SIGHUP is one: a
// terminal closed, or an agent host ending its child with it, must not
// kill agentlsp outright and leave its servers' children behind.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// profileEnv names the file a CPU profile of the whole run is written to
// (for benchmarks: `mcpbench` and `loadharness` drive the command, and
// pprof reads the file).
const profileEnv = "AGENTLSP_CPUPROFILE"

// startProfile starts a CPU profile to file, if one is named, and returns
// what stops it; a profile that cannot start is reported and skipped.
func startProfile(file string, stderr io.Writer) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentlsp: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// The exit statuses.
const (
	exitOK       = 0
	exitFound    = 1 // check: an error-severity diagnostic exists
	exitUsage    = 2 // bad flags or arguments
	exitFailure  = 3 // a file could not be checked, a query failed, ...
	exitSignaled = 130
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, io stdio) error
}

// stdio is where a subcommand reads and writes.
type stdio struct {
	in          io.Reader
	out, errOut io.Writer
}

// commands lists the subcommands in the order usage shows them.
func commands() []command {
	return []command{
		{"check", "print diagnostics of files like a linter", runCheck},
		{"query", "ask a language server one navigation question", runQuery},
		{"servers", "list the configured language servers and their state", runServers},
		{"mcp", "serve MCP over stdio", runMCP},
		{"serve", "run the workspace's shared daemon (mcp, check, query --shared attach to it)", runServe},
		{"status", "list this user's shared daemons: workspace, pid, clients, servers, memory", runStatus},
		{"setup", "write an agent's MCP configuration entry for agentlsp", runSetup},
	}
}

// run runs the command line args (without the program name) and returns
// the error that decides the exit status (see exitCode). It reports every
// error on stderr itself, except exitFound, which the output already
// tells. It blocks until the subcommand is done and its runtime shut down.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	std := stdio{in: stdin, out: stdout, errOut: &lockedWriter{w: stderr}}
	err := dispatch(ctx, args, std)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	report(std.errOut, err)
	return err
}

// dispatch runs the subcommand args name, or prints the usage.
func dispatch(ctx context.Context, args []string, std stdio) error {
	if len(args) == 0 {
		printUsage(std.out)
		return nil
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return dispatch(ctx, []string{args[1], "--help"}, std)
		}
		printUsage(std.out)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], std)
		}
	}
	if strings.HasPrefix(args[0], "-") {
		return usageErrorf("", "flag %s before the command: flags go after it, as in 'agentlsp check --workspace DIR FILE'", args[0])
	}
	return usageErrorf("", "unknown command %q", args[0])
}

// printUsage writes the overall usage.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: agentlsp <command> [flags] [arguments]\n\n"+
		"agentlsp gives code intelligence of real language servers to agents and people.\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "  help     show this help, or a command's: agentlsp help <command>\n\n"+
		"Every command takes --workspace DIR, --config FILE and --log-level LEVEL;\n"+
		"run 'agentlsp <command> --help' for its flags.\n\n"+
		"Exit status: 0 success, 1 check found errors, 2 usage error, 3 failure.\n")
}

// cliError is an error with the exit status it causes. reported errors
// were already shown to the user (or need not be).
type cliError struct {
	code     int
	cmd      string // the subcommand, for usage errors
	err      error
	reported bool
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usageErrorf is a usage error (exit 2) of the subcommand cmd ("" for
// none).
func usageErrorf(cmd, format string, args ...any) error {
	return &cliError{code: exitUsage, cmd: cmd, err: fmt.Errorf(format, args...)}
}

// failure is an error that makes the command fail (exit 3).
func failure(err error) error {
	if err == nil {
		return nil
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	return &cliError{code: exitFailure, err: err}
}

// errFound is check's result when an error-severity diagnostic exists.
var errFound = &cliError{code: exitFound, err: errors.New("agentlsp: errors found"), reported: true}

// exitCode is the exit status for run's error.
func exitCode(err error) int {
	var ce *cliError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitSignaled
	case errors.As(err, &ce):
		return ce.code
	}
	return exitFailure
}

// report writes err on stderr, with a hint for usage errors.
func report(w io.Writer, err error) {
	var ce *cliError
	switch {
	case err == nil:
	case errors.As(err, &ce) && ce.reported:
	case errors.As(err, &ce) && ce.code == exitUsage && ce.cmd != "":
		fmt.Fprintf(w, "agentlsp %s: %v\nRun 'agentlsp %s --help' for usage.\n", ce.cmd, ce.err, ce.cmd)
	case errors.As(err, &ce) && ce.code == exitUsage:
		fmt.Fprintf(w, "agentlsp: %v\nRun 'agentlsp help' for usage.\n", ce.err)
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "agentlsp: interrupted")
	default:
		fmt.Fprintf(w, "agentlsp: %s\n", safeText(trimPrefix(err.Error())))
	}
}
