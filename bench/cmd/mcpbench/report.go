package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// writeText writes the report as markdown tables.
func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	p := r.Params
	ws := p.Workspace
	if ws == "generated" {
		ws = fmt.Sprintf("a generated module of %d files", p.Files)
	}
	fmt.Fprintf(&b, "## agentlsp through MCP against raw gopls\n\n")
	fmt.Fprintf(&b, "%s; %d CPUs (%s), %s; %s; target %s (defined at %s); %.0f s.\n",
		ws, r.Machine.CPUs, r.Machine.CPUModel, r.Machine.GoVersion, r.Machine.Gopls, r.Target.Call, r.Target.Def, r.ElapsedS)
	fmt.Fprintf(&b, "MCP client: %s\n", map[string]string{"sdk": "the official Go SDK's",
		"lean": "lean (lines framed, the answer's envelope decoded, as the raw LSP client does)"}[p.Client])
	if len(p.MCPArgs) > 0 {
		fmt.Fprintf(&b, "agentlsp mcp extra args: %s\n", strings.Join(p.MCPArgs, " "))
	}
	if len(r.Ops) > 0 {
		fmt.Fprintf(&b, "\n### Navigation: %d calls per operation and client after %d warm-up calls, interleaved (ms)\n\n", p.Calls, p.Warmup)
		b.WriteString("| operation | raw p50 | raw p99 | MCP p50 | MCP p99 | overhead p50 | raw p99/p50 | MCP p99/p50 | raw correct | MCP correct |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
		for _, o := range r.Ops {
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.2f | %+.2f | %s | %s | %s | %s |\n", o.Op, o.Raw.P50, o.Raw.P99,
				o.MCP.P50, o.MCP.P99, o.OverheadP50, spread(o.Raw), spread(o.MCP), of(o.Raw), of(o.MCP))
		}
		raw, mcp := within2x(r.Ops)
		fmt.Fprintf(&b, "\np99 within 2x of p50 (issue 14): raw gopls %d of %d operations, agentlsp through MCP %d of %d.\n",
			raw, len(r.Ops), mcp, len(r.Ops))
		b.WriteString("\nThe same MCP calls less the time agentlsp's own gopls took for each (agentlsp reports it in the answer's _meta: " +
			"from each request handed to the connection to its answer read back): what agentlsp and MCP add to a round trip to the same server, " +
			"free of the difference between two gopls processes.\n\n")
		b.WriteString("| operation | agentlsp's gopls p50 | raw gopls p50 | added p50 | added p99 |\n|---|---|---|---|---|\n")
		for _, o := range r.Ops {
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %+.2f | %+.2f |\n", o.Op, o.Server.P50, o.Raw.P50, o.Own.P50, o.Own.P99)
		}
		if r.Ops[0].CPU != nil {
			b.WriteString("\nCPU time per call, warm-up included (every thread's, from /proc/PID/task/*/schedstat; µs); " +
				"the relayed client's calls, if any, are in neither column.\n\n")
			b.WriteString("| operation | agentlsp | agentlsp's gopls | raw gopls |\n|---|---|---|---|\n")
			for _, o := range r.Ops {
				if c := o.CPU; c != nil {
					fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f |\n", o.Op, c.Agentlsp, c.Servers, c.RawGopls)
				}
			}
		}
		if len(r.Ops) > 0 && r.Ops[0].Relayed != nil {
			b.WriteString("\nRaw gopls through lsprelay, a process that only relays bytes (the least any process in the middle costs), in the same run:\n\n")
			b.WriteString("| operation | relayed p50 | relayed p99 | relay overhead p50 | agentlsp overhead p50 |\n|---|---|---|---|---|\n")
			for _, o := range r.Ops {
				if o.Relayed != nil {
					fmt.Fprintf(&b, "| %s | %.2f | %.2f | %+.2f | %+.2f |\n", o.Op, o.Relayed.P50, o.Relayed.P99, o.RelayOverheadP50, o.OverheadP50)
				}
			}
		}
		writeBaseline(&b, r.Ops, p.Baseline)
		if f := r.Floor; f != nil {
			fmt.Fprintf(&b, "\nThe MCP protocol's own round trip (a ping through the same client, server and pipes, no tool): "+
				"p50 %.2f, p99 %.2f; the overhead less this floor is what agentlsp adds.\n", f.P50, f.P99)
		}
	}
	if e := r.Edit; e != nil {
		delay := ""
		if p.EditDelayMs > 0 {
			delay = fmt.Sprintf("; the MCP client waits %.0f ms between its write and its call, counted", p.EditDelayMs)
		}
		tell, state := "didChangeWatchedFiles", "the edited file open in neither client"
		if p.Edited == "open" {
			tell, state = "didChange", "the edited file open in both clients"
		}
		fmt.Fprintf(&b, "\n### Edit on disk to fresh diagnostics of the caller (%d edits, break and restore in turn, %s%s; ms)\n\n", e.MCP.Calls, state, delay)
		b.WriteString("| client | p50 | p99 | max | correct | p50 / p99 of the correct |\n|---|---|---|---|---|---|\n")
		fmt.Fprintf(&b, "| raw gopls: write, %s, first publishDiagnostics showing it | %.2f | %.2f | %.2f | %s | %s |\n",
			tell, e.Raw.P50, e.Raw.P99, e.Raw.Max, of(e.Raw), rightOf(e.Raw))
		fmt.Fprintf(&b, "| raw gopls: write, %s, end of gopls's diagnosis of the change (every finding published) | %.2f | %.2f | %.2f | %s | %s |\n",
			tell, e.RawDone.P50, e.RawDone.P99, e.RawDone.Max, of(e.RawDone), rightOf(e.RawDone))
		fmt.Fprintf(&b, "| agentlsp: write, `diagnostics` tool answer (correct: fresh, error present or absent as written) | %.2f | %.2f | %.2f | %s | %s |\n",
			e.MCP.P50, e.MCP.P99, e.MCP.Max, of(e.MCP), rightOf(e.MCP))
		right := "n/a"
		if e.MCP.Right.Count > 0 && e.Raw.Right.Count > 0 {
			right = fmt.Sprintf("%+.2f", round2(e.MCP.Right.P50-e.Raw.Right.P50))
		}
		fmt.Fprintf(&b, "| overhead p50 | %+.2f | | | | %s |\n", round2(e.MCP.P50-e.Raw.P50), right)
		fmt.Fprintf(&b, "| overhead p50 over the end of the diagnosis | %+.2f | | | | |\n", round2(e.MCP.P50-e.RawDone.P50))
	}
	if c := r.Cold; c != nil {
		fmt.Fprintf(&b, "\n### Cold start to the first correct goToDefinition (%d starts per client; ms)\n\n", c.MCP.Calls)
		b.WriteString("| client | median | runs | correct |\n|---|---|---|---|\n")
		fmt.Fprintf(&b, "| raw gopls | %.2f | %v | %s |\n", median(c.RawMs), c.RawMs, of(c.Raw))
		fmt.Fprintf(&b, "| agentlsp mcp | %.2f | %v | %s |\n", median(c.MCPMs), c.MCPMs, of(c.MCP))
		fmt.Fprintf(&b, "| ratio agentlsp / raw | %.2f | | |\n", c.Ratio)
	}
	if c := r.Check; c != nil {
		fmt.Fprintf(&b, "\n### One-shot check of %s with its callee broken (%d paired runs; wall ms)\n\n", c.File, c.Agentlsp.Calls)
		b.WriteString("| command | median | runs | reported the error |\n|---|---|---|---|\n")
		fmt.Fprintf(&b, "| gopls check | %.2f | %v | %s |\n", median(c.GoplsMs), c.GoplsMs, of(c.Gopls))
		fmt.Fprintf(&b, "| agentlsp check | %.2f | %v | %s |\n", median(c.AgentlspMs), c.AgentlspMs, of(c.Agentlsp))
		fmt.Fprintf(&b, "| ratio agentlsp / gopls | %.2f | | |\n", c.Ratio)
	}
	if r.Peers != nil {
		writePeers(&b, r.Peers, p.Calls)
	}
	if m := r.Memory; m != nil {
		b.WriteString("\n### Peak resident memory of the warm clients (VmHWM, MiB)\n\n| raw gopls | agentlsp | agentlsp's gopls | ratio (agentlsp and its gopls) / raw |\n|---|---|---|---|\n")
		ratio := 0.0
		if m.RawGopls > 0 {
			ratio = round2((m.Agentlsp + m.AgentlspLSP) / m.RawGopls)
		}
		fmt.Fprintf(&b, "| %.1f | %.1f | %.1f | %.2f |\n", m.RawGopls, m.Agentlsp, m.AgentlspLSP, ratio)
	}
	b.WriteString(failures(r))
	_, err := io.WriteString(w, b.String())
	return err
}

// rightOf renders the p50 / p99 of the correct answers, n/a for none.
func rightOf(s Side) string {
	if s.Right.Count == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f / %.2f", s.Right.P50, s.Right.P99)
}

// of renders "k of n".
func of(s Side) string { return fmt.Sprintf("%d of %d", s.Correct, s.Calls) }

// failures lists the first failure of every client that had one.
func failures(r *Report) string {
	var b strings.Builder
	add := func(what string, s Side) {
		if s.Error != "" {
			fmt.Fprintf(&b, "- %s: %s\n", what, s.Error)
		}
	}
	for _, o := range r.Ops {
		add(o.Op+", raw", o.Raw)
		add(o.Op+", MCP", o.MCP)
	}
	if e := r.Edit; e != nil {
		add("edit, raw", e.Raw)
		add("edit, MCP", e.MCP)
	}
	if c := r.Cold; c != nil {
		add("cold start, raw", c.Raw)
		add("cold start, MCP", c.MCP)
	}
	if c := r.Check; c != nil {
		add("gopls check", c.Gopls)
		add("agentlsp check", c.Agentlsp)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n### First failures\n\n" + b.String()
}

// writeJSON writes the report as indented JSON to path ("-": w).
func writeJSON(w io.Writer, path string, r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err = w.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// spread is a side's p99 over its p50 (issue 14 asks for at most 2x), or
// "-" without a p50.
func spread(s Side) string {
	if s.P50 <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", s.P99/s.P50)
}

// within2x counts the operations whose p99 is at most twice their p50, on
// each side.
func within2x(ops []OpResult) (raw, mcp int) {
	for _, o := range ops {
		if o.Raw.P50 > 0 && o.Raw.P99 <= 2*o.Raw.P50 {
			raw++
		}
		if o.MCP.P50 > 0 && o.MCP.P99 <= 2*o.MCP.P50 {
			mcp++
		}
	}
	return raw, mcp
}
