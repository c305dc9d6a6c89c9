// Command demo shows agentlsp as an orchestrator uses it: two agent
// sessions edit a Go module and a Python project of one workspace in
// parallel, each gets its own fresh diagnostics and navigation answers;
// then gopls is killed with SIGKILL in the middle of the work, and the
// runtime restarts it with every document re-opened, so the next edit
// gets fresh diagnostics as if nothing happened.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentlsp/agentlsp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "directory for the sample workspace (default: a temporary directory)")
	verbose := fs.Bool("v", false, "log the runtime's events to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ws, cleanup, err := writeWorkspace(*dir)
	if err != nil {
		return err
	}
	defer cleanup()
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	rt, err := agentlsp.Start(ctx, agentlsp.Config{Workspace: ws, Logger: logger, DiagnosticsTimeout: time.Minute})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = rt.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "agentlsp demo: workspace %s (a Go module and a Python project)\n\n", ws)
	d := &demo{rt: rt, ws: ws, out: stdout}
	return d.run(ctx)
}

// demo runs the scenario and prints what each agent sees.
type demo struct {
	rt  *agentlsp.Runtime
	ws  string
	out io.Writer
}

func (d *demo) run(ctx context.Context) error {
	fmt.Fprintln(d.out, "== 1. two agents edit in parallel ==")
	if err := d.parallel(ctx, d.goAgentBreaks, d.pyAgentBreaks); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "\n== 2. gopls is killed with SIGKILL while the Go agent works ==")
	if err := d.killGopls(ctx); err != nil {
		return err
	}
	if err := d.goAgentAfterCrash(ctx); err != nil {
		return err
	}
	fmt.Fprintln(d.out, "\n== 3. both agents fix their errors ==")
	if err := d.parallel(ctx, d.goAgentFixes, d.pyAgentFixes); err != nil {
		return err
	}
	return d.printServers(ctx)
}

// parallel runs the agents at once and prints each agent's transcript in
// turn, so the output does not interleave.
func (d *demo) parallel(ctx context.Context, agents ...func(context.Context, *transcript) error) error {
	ts := make([]*transcript, len(agents))
	errs := make([]error, len(agents))
	done := make(chan int, len(agents))
	for i, agent := range agents {
		ts[i] = &transcript{}
		// One goroutine per agent, joined below.
		go func() {
			errs[i] = agent(ctx, ts[i])
			done <- i
		}()
	}
	for range agents {
		<-done
	}
	for _, t := range ts {
		d.out.Write(t.Bytes())
	}
	return errors.Join(errs...)
}

func (d *demo) killGopls(ctx context.Context) error {
	servers, err := d.rt.Servers(ctx)
	if err != nil {
		return err
	}
	for _, s := range servers {
		if s.ServerID == "gopls" && s.PID > 0 {
			fmt.Fprintf(d.out, "kill -9 %d (gopls, incarnation %d)\n", s.PID, s.Incarnation)
			return syscall.Kill(s.PID, syscall.SIGKILL)
		}
	}
	return errors.New("gopls is not running")
}

func (d *demo) printServers(ctx context.Context) error {
	servers, err := d.rt.Servers(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(d.out, "\n== language servers ==")
	for _, s := range servers {
		rel, _ := filepath.Rel(d.ws, s.Root)
		fmt.Fprintf(d.out, "%-8s root %-4s %s, incarnation %d\n", s.ServerID, rel, s.State, s.Incarnation)
	}
	return nil
}
