package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The check phase: `agentlsp check FILE` against `gopls check FILE` on the
// caller of the broken declaration, each a new process, paired runs in
// alternating order, wall time from start to exit.

// check runs the paired check commands in a copy of the workspace with the
// declaration broken.
func (b *bench) check(ctx context.Context) (*CheckResult, error) {
	dir := filepath.Join(b.tmp, "check")
	if err := copyTree(b.src, dir); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, filepath.FromSlash(b.t.Def.Path)), b.broken); err != nil {
		return nil, err
	}
	file := b.t.Call.Path
	want := fmt.Sprintf("%s:%d:", filepath.Base(file), b.t.Call.Line)
	agentlspArgs := append([]string{"check", "--workspace", dir, "--config", b.config}, b.o.checkArgs...)
	agentlspArgs = append(agentlspArgs, file)
	var as, gs sample
	for i := range b.o.checkRuns {
		if ctx.Err() != nil {
			break
		}
		ad, aerr, gd, gerr := pair(i%2 == 1,
			func() (time.Duration, error) {
				return b.runCheck(ctx, dir, "agentlsp-check", b.bin, want, agentlspArgs...)
			},
			func() (time.Duration, error) {
				return b.runCheck(ctx, dir, "gopls-check", b.o.gopls, want, "check", filepath.Join(dir, filepath.FromSlash(file)))
			})
		as.add(ad, aerr)
		gs.add(gd, gerr)
	}
	r := &CheckResult{File: file, Agentlsp: as.side(), Gopls: gs.side(), AgentlspMs: as.ms(), GoplsMs: gs.ms()}
	r.Ratio = ratio(median(r.AgentlspMs), median(r.GoplsMs))
	fmt.Fprintf(b.log, "mcpbench: check                 agentlsp median %6.2f ms  gopls median %6.2f ms  ratio %.2f\n",
		median(r.AgentlspMs), median(r.GoplsMs), r.Ratio)
	return r, nil
}

// runCheck runs one check command in dir and returns its wall time; the
// error wraps ErrWrong when its output does not report want.
func (b *bench) runCheck(ctx context.Context, dir, name, path, want string, args ...string) (time.Duration, error) {
	d, out, err := b.runTool(ctx, dir, name, path, args...)
	if err != nil {
		return d, err
	}
	if !strings.Contains(out, want) {
		return d, fmt.Errorf("%w: %s did not report %s...: %q", ErrWrong, name, want, out)
	}
	return d, nil
}

// runTool runs a command to completion in its own process group, stdout
// and stderr to a file (so a grandchild holding them open cannot delay
// the measured exit), bounded by the call timeout; it kills the group
// afterwards. It returns the wall time, the output, and an error only when
// the command could not run or was killed: an exit status is an answer.
func (b *bench) runTool(ctx context.Context, dir, name, path string, args ...string) (time.Duration, string, error) {
	cmd, f, err := command(b.tmp, name, path, args...)
	if err != nil {
		return 0, "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Dir = dir
	cmd.Stdout = f
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, "", err
	}
	exited := make(chan error, 1)
	// Waits for the command; ends when it exits (waitExit kills it if need be).
	go func() { exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(b.o.callTimeout):
		werr = errors.Join(errors.New("timed out"), waitExit(cmd, exited, 0))
	case <-ctx.Done():
		werr = errors.Join(ctx.Err(), waitExit(cmd, exited, 0))
	}
	d := time.Since(start)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers of its group
	out, _ := os.ReadFile(f.Name())
	if werr != nil && !isExitError(werr) {
		return d, string(out), fmt.Errorf("%s: %w: %s", name, werr, out)
	}
	return d, string(out), nil
}
