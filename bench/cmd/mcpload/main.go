// Command mcpload is a load test of `agentlsp mcp` as agents use it:
// --clients (8) `agentlsp mcp` processes, each its own child spoken to by
// the official MCP Go SDK's client over stdio, each with --concurrency
// (16) calls in flight, for --duration (5 min), on one workspace holding a
// generated Go module (gopls) and a small Python project (pyright).
//
// Calls: every operation of the lsp tool on both languages, each about a
// place whose right answer is known (nav.go), and edits on disk followed
// by a diagnostics call (edit.go): every (client, worker) pair owns files
// in both languages that only it writes, in turn a version with an error
// on a known line and a clean one, and asks either about the file it
// wrote or about a file that uses it (the dependency case), so a fresh
// answer must show exactly what is on disk. Every call is checked:
//
//   - wrong: an answer that contradicts what is known (or lacks part of it
//     without saying it may be incomplete); diagnostics labelled fresh
//     that do not describe the file on disk;
//   - unanswered: no answer within --call-timeout, or a broken connection;
//   - non-fresh diagnostics, incomplete answers that say so, and tool
//     errors are counted apart, the errors by kind;
//   - the other files of diagnostics answers (not named, with new errors)
//     are counted by who wrote them and whether the answer names other
//     changes that could have broken them (otherFiles).
//
// Every few seconds the RSS and threads of every agentlsp process and the
// RSS of its language servers are read from /proc; the report gives each
// kind's least-squares slope after --warmup. With --kill-every D, a gopls
// or pyright child of a random agentlsp process is SIGKILLed every D, and
// tool errors naming a crash or a broken server, and non-fresh
// diagnostics, are expected failures. At the end every client is closed
// and every process the run started (marked in its environment, tracked
// by pid and process group) must be gone; stragglers are killed and
// reported.
//
// Exit status 1 when a call was wrong or unanswered, a tool error was not
// explained by an injected fault, or a process was left over. Every child
// leads its own process group and is killed at the end; the temporary
// directory is removed; Ctrl-C stops cleanly, with a report.
//
//	go run ./bench/cmd/mcpload
//	go run ./bench/cmd/mcpload --kill-every 2s
//	go run ./bench/cmd/mcpload --clients 2 --concurrency 4 --duration 20s --json -
//
// docs/RELIABILITY.md ("MCP load test") records a run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

var (
	// ErrFailed is a run with wrong or unanswered calls, unexpected tool
	// errors or processes left over.
	ErrFailed = errors.New("mcpload: failed")
	// ErrInterrupted is a run stopped by a signal or its deadline.
	ErrInterrupted = errors.New("mcpload: interrupted")
)

func main() { benchcmd.Main("mcpload", run) }

// run parses args, runs the load and writes the report to stdout,
// progress to stderr. It returns when every child process is gone and the
// temporary directory removed: ErrFailed or ErrInterrupted after a report
// that says why, another error when the run could not start.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.deadline)
	defer cancel()
	b, cleanup, err := setup(ctx, o, stderr)
	defer cleanup()
	if err != nil {
		return err
	}
	rep, err := b.load(ctx)
	if err != nil {
		return err
	}
	if o.jsonPath != "" {
		if err := writeJSON(stdout, o.jsonPath, rep); err != nil {
			return err
		}
	}
	if o.jsonPath != "-" {
		writeText(stdout, rep, o.showSamples)
	}
	switch {
	case rep.Interrupted:
		return ErrInterrupted
	case !rep.Pass:
		return fmt.Errorf("%w: %s", ErrFailed, strings.Join(rep.Failures, "; "))
	}
	return nil
}
