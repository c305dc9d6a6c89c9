// Command mcpbench measures agentlsp as agents use it: `agentlsp mcp` as a
// child process, spoken to over stdio by the official MCP Go SDK's client,
// side by side in the same run with the same language server (gopls)
// started directly and spoken to in raw LSP JSON-RPC by a minimal
// hand-written client (the floor). Each client gets its own copy of the
// same workspace: a generated Go module (--files), or an existing
// directory (--workspace, with --at naming a call site).
//
// Phases (--phases):
//
//   - nav: both clients started once and warmed up, then for each lsp tool
//     operation --calls calls per client, raw and MCP interleaved; p50 and
//     p99 per operation and client, and the overhead MCP p50 - raw p50;
//   - edit: the file declaring the called function is written on disk with
//     the function renamed, then restored, in turn; time from the write to
//     diagnostics of the caller that show (or no longer show) the broken
//     call: the MCP `diagnostics` tool's answer, checked (status fresh,
//     error present or absent), against raw gopls's first
//     publishDiagnostics showing it after a didChange;
//   - cold: new processes, start to the first goToDefinition answer that
//     names the right declaration;
//   - check: `agentlsp check FILE` against `gopls check FILE` on the broken
//     caller, wall time of paired runs, medians and their ratio;
//   - peers (with --peer NAME=PATH): agentlsp and other MCP bridges to
//     gopls side by side (peers.go): definition, references and hover,
//     an edit on disk to diagnostics that show it, a cold start.
//
// Every call has a timeout, the whole run a deadline (--deadline); every
// child leads its own process group and is killed with its descendants;
// the temporary directory is removed. The report goes to stdout as
// markdown (--json FILE also writes JSON), progress to stderr.
//
//	go run ./bench/cmd/mcpbench
//	go run ./bench/cmd/mcpbench --files 50 --calls 500 --json mcp.json
//	go run ./bench/cmd/mcpbench --workspace ~/src/proj --at pkg/a.go:12:9
//
// docs/BENCHMARKS.md ("MCP benchmark client") records a run.
package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
	"github.com/agentlsp/agentlsp/gcfloor"
)

var (
	// ErrWrong is an answer that is empty, names the wrong place, is not
	// fresh or does not show what was written.
	ErrWrong = errors.New("mcpbench: wrong answer")
	// ErrTarget is a bad --at, --impl or --def, or a target the workspace
	// lacks.
	ErrTarget = errors.New("mcpbench: bad target")
	// ErrConnClosed is returned by calls on a raw LSP connection whose
	// read loop ended (the server exited or sent a malformed frame).
	ErrConnClosed = errors.New("mcpbench: lsp connection closed")
	// ErrFrame is a malformed frame from the server.
	ErrFrame = errors.New("mcpbench: malformed lsp frame")
	// ErrUnresponsive is returned when a child does not exit after a kill.
	ErrUnresponsive = errors.New("mcpbench: child process did not exit")
)

// main paces the client's collector as agentlsp paces its own
// (gcfloor), so that the client's collections, which land on raw and MCP
// calls alike, do not make either side's p99.
func main() {
	defer gcfloor.Start(64 << 20)()
	benchcmd.Main("mcpbench", run)
}

// run parses args, runs the phases and writes the report. It returns when
// every child process is gone and the temporary directory removed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.deadline)
	defer cancel()
	began := time.Now()
	b, cleanup, err := setup(ctx, o, stderr)
	defer cleanup()
	if err != nil {
		return err
	}
	rep := &Report{Args: args, Machine: b.machine(ctx), Target: b.t, Params: Params{Workspace: "generated", Files: o.files,
		Calls: o.calls, Warmup: o.warmup, Edits: o.edits, EditDelayMs: msOf(o.editDelay), Edited: o.edited, Cold: o.cold, CheckRuns: o.checkRuns,
		MCPArgs: o.mcpArgs, CheckArgs: o.checkArgs, Client: o.client, Baseline: o.baseline}}
	if o.workspace != "" {
		rep.Params.Workspace, rep.Params.Files = b.src, 0
	}
	if err := b.phases(ctx, rep); err != nil {
		return err
	}
	rep.ElapsedS = round2(time.Since(began).Seconds())
	if o.jsonPath != "" {
		if err := writeJSON(stdout, o.jsonPath, rep); err != nil || o.jsonPath == "-" {
			return err
		}
	}
	return writeText(stdout, rep)
}

// phases runs the phases asked for; the warm clients serve nav and edit.
func (b *bench) phases(ctx context.Context, rep *Report) error {
	if err := b.warm(ctx, rep); err != nil {
		return err
	}
	if b.o.runs("cold") && b.o.cold > 0 {
		rep.Cold = b.cold(ctx)
	}
	if b.o.runs("peers") && len(b.o.peers) > 0 {
		r, err := b.peers(ctx)
		if err != nil {
			return err
		}
		rep.Peers = r
	}
	if b.o.runs("check") && b.o.checkRuns > 0 && b.broken != "" {
		c, err := b.check(ctx)
		if err != nil {
			return err
		}
		rep.Check = c
	}
	return ctx.Err()
}
