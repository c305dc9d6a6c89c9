package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

// bench is one run's shared state: the temporary directory, the binaries,
// the workspace copies and the target. Owned by run's goroutine.
type bench struct {
	o      *options
	log    io.Writer
	tmp    string // removed by cleanup
	bin    string // agentlsp
	config string // agentlsp configuration: gopls is o.gopls
	src    string // the pristine workspace
	rawWS  string // the raw client's copy
	// relayWS is the relayed raw client's copy, relay the lsprelay
	// binary ("" without --relay).
	relayWS, relay string
	mcpWS          string // the MCP client's copy
	baseWS         string // the baseline build's copy ("" without --baseline)
	t              target
	// orig and broken are the text of the file declaring the called
	// function, as it is and with the function renamed ("" when the
	// declaration is outside the workspace).
	orig, broken string
}

// setup builds or finds agentlsp, writes its configuration and the
// workspace copies. cleanup removes everything; call it even on error.
func setup(ctx context.Context, o *options, log io.Writer) (b *bench, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return nil, cleanup, err
	}
	// --mcp-args --shared starts a daemon: the run's own, stopped at the end.
	stopDaemons, err := benchcmd.PrivateDaemons(tmp)
	cleanup = func() {
		stopDaemons()
		os.RemoveAll(tmp)
	}
	if err != nil {
		return nil, cleanup, err
	}
	b = &bench{o: o, log: log, tmp: tmp, bin: o.agentlsp, config: filepath.Join(tmp, "agentlsp.json")}
	if b.bin == "" {
		if b.bin, err = benchcmd.BuildAgentlsp(ctx, "mcpbench", tmp, log); err != nil {
			return nil, cleanup, err
		}
	}
	if o.relay {
		if b.relay, err = benchcmd.Build(ctx, "mcpbench", tmp, "bench/cmd/lsprelay", log); err != nil {
			return nil, cleanup, err
		}
	}
	// agentlsp waits for gopls's diagnostics as long as the raw client
	// does (--diag-timeout), not its default 3 s: on a loaded machine a
	// late diagnosis was a wrong answer on one side only.
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{"gopls": map[string]any{
		"command": o.gopls, "diagnosticsTimeout": o.diagTimeout.String()}}})
	if err := os.WriteFile(b.config, cfg, 0o644); err != nil {
		return nil, cleanup, err
	}
	if err := b.workspaces(); err != nil {
		return nil, cleanup, err
	}
	return b, cleanup, nil
}

// workspaces generates or locates the workspace, copies it for each
// client and works out the target.
func (b *bench) workspaces() error {
	o := b.o
	b.src = filepath.Join(b.tmp, "src")
	if o.workspace == "" {
		t, err := generate(b.src, o.files)
		if err != nil {
			return err
		}
		b.t = t
	} else {
		src, err := filepath.Abs(o.workspace)
		if err != nil {
			return err
		}
		b.src = src
		if b.t, err = existingTarget(src, o); err != nil {
			return err
		}
	}
	if o.query != "" {
		b.t.Query = o.query
	}
	b.rawWS, b.mcpWS = filepath.Join(b.tmp, "raw"), filepath.Join(b.tmp, "mcp")
	copies := []string{b.rawWS, b.mcpWS}
	if b.relay != "" {
		b.relayWS = filepath.Join(b.tmp, "relayed")
		copies = append(copies, b.relayWS)
	}
	if o.baseline != "" {
		b.baseWS = filepath.Join(b.tmp, "baseline")
		copies = append(copies, b.baseWS)
	}
	for _, dst := range copies {
		if err := copyTree(b.src, dst); err != nil {
			return err
		}
	}
	return nil
}

// existingTarget reads --at, --impl and --def for an existing workspace.
func existingTarget(src string, o *options) (target, error) {
	at, err := parseLoc(o.at)
	if err != nil {
		return target{}, err
	}
	text, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(at.Path)))
	if err != nil {
		return target{}, fmt.Errorf("%w: --at: %v", ErrTarget, err)
	}
	t := target{Call: at, Impl: at, Name: identAt(string(text), at)}
	if t.Name == "" {
		return target{}, fmt.Errorf("%w: --at %s is not on a name", ErrTarget, at)
	}
	t.Query = t.Name
	if o.impl != "" {
		if t.Impl, err = parseLoc(o.impl); err != nil {
			return target{}, err
		}
	}
	if o.def != "" {
		if t.Def, err = parseLoc(o.def); err != nil {
			return target{}, err
		}
	}
	return t, nil
}

// prepareEdit reads the declaring file and renames the declaration in a
// copy of its text; it leaves orig empty when the declaration is not in
// the workspace.
func (b *bench) prepareEdit() error {
	if b.t.Def.Path == "" || filepath.IsAbs(b.t.Def.Path) || strings.HasPrefix(b.t.Def.Path, "..") {
		return nil
	}
	text, err := os.ReadFile(filepath.Join(b.src, filepath.FromSlash(b.t.Def.Path)))
	if err != nil {
		return err
	}
	broken, err := brokenText(string(text), b.t.Def, b.t.Name)
	if err != nil {
		return err
	}
	b.orig, b.broken = string(text), broken
	return nil
}

// machine describes this machine and the binaries.
func (b *bench) machine(ctx context.Context) Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), Agentlsp: b.bin}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	_, out, _ := b.runTool(ctx, b.tmp, "gopls-version", b.o.gopls, "version")
	first, _, _ := strings.Cut(out, "\n")
	m.Gopls = strings.TrimSpace(b.o.gopls + " " + first)
	return m
}
