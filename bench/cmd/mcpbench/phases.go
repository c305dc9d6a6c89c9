package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The phases. Raw and MCP calls alternate, and which goes first alternates
// too, so drift and the other server's background work fall on both.

// editGap is the pause before each timed edit, so that each starts with
// both servers idle (gopls's analyzers finish a small module's previous
// edit within it).
const editGap = 100 * time.Millisecond

// coldGap is the least time between two tries of a cold start's first
// definition.
const coldGap = 10 * time.Millisecond

// warm starts both clients once, learns the right definition if it was not
// given, then runs the nav and edit phases.
func (b *bench) warm(ctx context.Context, rep *Report) (err error) {
	o := b.o
	fmt.Fprintln(b.log, "mcpbench: starting raw gopls and agentlsp mcp...")
	raw, err := startRaw(ctx, o.gopls, "", b.rawWS, b.tmp, o.callTimeout, []string{b.t.Call.Path})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, raw.close(ctx)) }()
	if err := b.learnDefinition(ctx, raw); err != nil {
		return err
	}
	rep.Target = b.t
	mcp, err := startMCP(ctx, b.bin, b.mcpWS, b.config, b.tmp, o.callTimeout, o.mcpArgs, o.client == "lean")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, mcp.close()) }()
	if o.runs("nav") {
		var relayed *rawSide
		if b.relay != "" {
			if relayed, err = startRaw(ctx, o.gopls, b.relay, b.relayWS, b.tmp, o.callTimeout, []string{b.t.Call.Path}); err != nil {
				return err
			}
			defer func() { err = errors.Join(err, relayed.close(ctx)) }()
		}
		var base *mcpSide
		if o.baseline != "" {
			if base, err = startMCP(ctx, o.baseline, b.baseWS, b.config, b.tmp, o.callTimeout, o.mcpArgs, o.client == "lean"); err != nil {
				return fmt.Errorf("mcpbench: --baseline: %w", err)
			}
			defer func() { err = errors.Join(err, base.close()) }()
		}
		rep.Floor = b.floor(ctx, mcp)
		rep.Ops = b.nav(ctx, raw, mcp, relayed, base)
	}
	if o.runs("edit") && b.orig != "" && o.edits > 0 {
		rep.Edit = b.edits(ctx, raw, mcp)
	}
	rep.Memory = peaks(raw.cmd.Process.Pid, mcp.cmd.Process.Pid)
	return ctx.Err()
}

// learnDefinition asks the raw server for the definition until it names
// one (gopls answers once it loaded the workspace); it checks a given
// definition against it, or takes it as the right one.
func (b *bench) learnDefinition(ctx context.Context, raw *rawSide) error {
	deadline := time.Now().Add(b.o.callTimeout)
	for {
		got, err := raw.firstDefinition(ctx, b.t)
		switch {
		case err == nil && b.t.Def == (loc{}):
			b.t.Def = got
			return b.prepareEdit()
		case err == nil && got != b.t.Def:
			return fmt.Errorf("%w: gopls says %s is defined at %s, not at %s", ErrTarget, b.t.Call, got, b.t.Def)
		case err == nil:
			return b.prepareEdit()
		case time.Now().After(deadline) || ctx.Err() != nil:
			return fmt.Errorf("mcpbench: raw gopls never answered goToDefinition at %s: %w", b.t.Call, err)
		}
		if err := sleep(ctx, coldGap); err != nil {
			return err
		}
	}
}

// nav measures every operation: warm-up calls, then o.calls calls per
// client, interleaved, each client first in turn; relayed (raw gopls
// through lsprelay) and base (a baseline build) are measured too unless
// nil.
func (b *bench) nav(ctx context.Context, raw *rawSide, mcp *mcpSide, relayed *rawSide, base *mcpSide) []OpResult {
	var out []OpResult
	for _, op := range b.o.ops {
		if ctx.Err() != nil {
			break
		}
		clients := []func() (time.Duration, error){
			func() (time.Duration, error) { return raw.do(ctx, op, b.t) },
			func() (time.Duration, error) { return mcp.do(ctx, op, b.t) },
		}
		relayAt, baseAt := -1, -1
		if relayed != nil {
			relayAt = len(clients)
			clients = append(clients, func() (time.Duration, error) { return relayed.do(ctx, op, b.t) })
		}
		if base != nil {
			baseAt = len(clients)
			clients = append(clients, func() (time.Duration, error) { return base.do(ctx, op, b.t) })
		}
		samples := make([]sample, len(clients))
		var own, server, baseOwn sample                                        // the MCP calls less their server's time; that time
		var diffs []time.Duration                                              // this build's own time less the baseline's, round by round
		before, made := sampleCPU(mcp.cmd.Process.Pid, raw.cmd.Process.Pid), 0 // made: calls per client
		var baseBefore cpuSample
		if base != nil {
			baseBefore = sampleCPU(base.cmd.Process.Pid, raw.cmd.Process.Pid)
		}
		for i := range b.o.warmup + b.o.calls {
			if ctx.Err() != nil {
				break
			}
			made++
			var mine, theirs time.Duration // this round's own times of the two builds
			var mineOK, theirsOK bool      // answered right
			for k := range clients {
				c := (i + k) % len(clients)
				d, err := clients[c]()
				if i < b.o.warmup {
					continue
				}
				samples[c].add(d, err)
				switch {
				case c == 1 && mcp.server > 0:
					own.add(d-mcp.server, err)
					server.add(mcp.server, err)
					mine, mineOK = d-mcp.server, err == nil
				case c == baseAt && base.server > 0:
					baseOwn.add(d-base.server, err)
					theirs, theirsOK = d-base.server, err == nil
				}
			}
			if mineOK && theirsOK {
				diffs = append(diffs, mine-theirs)
			}
		}
		r := OpResult{Op: op, Raw: samples[0].side(), MCP: samples[1].side(),
			CPU: perCall(before, sampleCPU(mcp.cmd.Process.Pid, raw.cmd.Process.Pid), made)}
		r.OverheadP50 = round2(r.MCP.P50 - r.Raw.P50)
		if len(own.ds) > 0 {
			r.Own, r.Server = own.side().Latency, server.side().Latency
		}
		if relayAt >= 0 {
			side := samples[relayAt].side()
			r.Relayed, r.RelayOverheadP50 = &side, round2(side.P50-r.Raw.P50)
		}
		if baseAt >= 0 {
			r.Baseline = &BaselineResult{MCP: samples[baseAt].side(), Own: baseOwn.side().Latency, Diff: pairedMedian(diffs),
				CPU: perCall(baseBefore, sampleCPU(base.cmd.Process.Pid, raw.cmd.Process.Pid), made)}
		}
		fmt.Fprintf(b.log, "mcpbench: %-20s raw p50 %6.2f ms  mcp p50 %6.2f ms  overhead %+.2f ms (less its server's time %.2f)  correct %d/%d, %d/%d\n",
			op, r.Raw.P50, r.MCP.P50, r.OverheadP50, r.Own.P50, r.Raw.Correct, r.Raw.Calls, r.MCP.Correct, r.MCP.Calls)
		out = append(out, r)
	}
	return out
}

// floor measures the MCP protocol's own round trip: o.calls pings after
// the warm-up.
func (b *bench) floor(ctx context.Context, mcp *mcpSide) *Side {
	var s sample
	for i := range b.o.warmup + b.o.calls {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, b.o.callTimeout)
		err := mcp.ping(cctx)
		cancel()
		if i >= b.o.warmup {
			s.add(time.Since(start), err)
		}
	}
	side := s.side()
	fmt.Fprintf(b.log, "mcpbench: MCP floor (ping)      p50 %6.2f ms\n", side.P50)
	return &side
}

// pair runs raw and mcp, mcp first when mcpFirst.
func pair(mcpFirst bool, raw, mcp func() (time.Duration, error)) (rd time.Duration, rerr error, md time.Duration, merr error) {
	if mcpFirst {
		md, merr = mcp()
		rd, rerr = raw()
	} else {
		rd, rerr = raw()
		md, merr = mcp()
	}
	return rd, rerr, md, merr
}

// edits writes the declaring file broken and restored in turn, in each
// client's copy, and times each to the diagnostics that show it.
func (b *bench) edits(ctx context.Context, raw *rawSide, mcp *mcpSide) *EditResult {
	var rs, rdone, ms sample
	path := b.t.Def.Path
	onDisk := b.o.edited == "closed"
	// The raw client opened the caller when it started; the MCP client
	// asks for its diagnostics once, untimed, so that agentlsp has it open
	// too (after the nav phase it has already). Without it the first edit
	// timed agentlsp's first open of the caller, gopls loading the
	// workspace: 260 ms where the others took 45.
	opened := []string{b.t.Call.Path}
	if !onDisk { // the MCP client names the edited file once, so agentlsp opens it
		opened = append(opened, path)
	}
	for _, p := range opened {
		if _, _, err := mcp.call(ctx, time.Now(), "diagnostics", map[string]any{"files": []string{p}}); err != nil {
			fmt.Fprintf(b.log, "mcpbench: opening %s in agentlsp: %v\n", p, err)
		}
	}
	for i := range b.o.edits {
		if ctx.Err() != nil {
			break
		}
		want := i%2 == 0
		text := b.orig
		if want {
			text = b.broken
		}
		rd, rerr, md, merr := pair((i/2)%2 == 1,
			func() (time.Duration, error) {
				_ = sleep(ctx, editGap)
				shown, done, err := raw.edit(ctx, path, text, b.t, want, onDisk, b.o.diagTimeout)
				if done > 0 || err != nil {
					rdone.add(done, err)
				}
				if done > 0 {
					err = nil // the publication came; only the end did not
				}
				return shown, err
			},
			func() (time.Duration, error) {
				_ = sleep(ctx, editGap)
				return mcp.edit(ctx, path, text, b.t, want, b.o.editDelay)
			})
		rs.add(rd, rerr)
		ms.add(md, merr)
	}
	if b.o.edits%2 == 1 { // leave the workspace as it was
		_, _, _ = raw.edit(ctx, path, b.orig, b.t, false, onDisk, b.o.diagTimeout)
		_, _ = mcp.edit(ctx, path, b.orig, b.t, false, b.o.editDelay)
	}
	r := &EditResult{Raw: rs.side(), RawDone: rdone.side(), MCP: ms.side()}
	fmt.Fprintf(b.log, "mcpbench: edit to diagnostics   raw p50 %6.2f ms (diagnosis ended %6.2f ms)  mcp p50 %6.2f ms  correct %d/%d, %d/%d\n",
		r.Raw.P50, r.RawDone.P50, r.MCP.P50, r.Raw.Correct, r.Raw.Calls, r.MCP.Correct, r.MCP.Calls)
	return r
}

// cold starts each client o.cold times and times process start to the
// first goToDefinition answer naming the right place.
func (b *bench) cold(ctx context.Context) *ColdResult {
	var rs, ms sample
	for i := range b.o.cold {
		if ctx.Err() != nil {
			break
		}
		rd, rerr, md, merr := pair(i%2 == 1, func() (time.Duration, error) { return b.coldRaw(ctx) },
			func() (time.Duration, error) { return b.coldMCP(ctx) })
		rs.add(rd, rerr)
		ms.add(md, merr)
	}
	r := &ColdResult{Raw: rs.side(), MCP: ms.side(), RawMs: rs.ms(), MCPMs: ms.ms()}
	r.Ratio = ratio(median(r.MCPMs), median(r.RawMs))
	fmt.Fprintf(b.log, "mcpbench: cold start            raw p50 %6.2f ms  mcp p50 %6.2f ms  correct %d/%d, %d/%d\n",
		r.Raw.P50, r.MCP.P50, r.Raw.Correct, r.Raw.Calls, r.MCP.Correct, r.MCP.Calls)
	return r
}

// coldRaw starts gopls and asks for the definition until it is right.
func (b *bench) coldRaw(ctx context.Context) (d time.Duration, err error) {
	start := time.Now()
	raw, err := startRaw(ctx, b.o.gopls, "", b.rawWS, b.tmp, b.o.callTimeout, []string{b.t.Call.Path})
	if err != nil {
		return time.Since(start), err
	}
	defer func() { err = errors.Join(err, raw.close(ctx)) }()
	return untilRight(ctx, start, b.o.callTimeout, func() error { _, err := raw.do(ctx, "goToDefinition", b.t); return err })
}

// coldMCP starts agentlsp mcp and asks for the definition until it is right.
func (b *bench) coldMCP(ctx context.Context) (d time.Duration, err error) {
	start := time.Now()
	mcp, err := startMCP(ctx, b.bin, b.mcpWS, b.config, b.tmp, b.o.callTimeout, b.o.mcpArgs, b.o.client == "lean")
	if err != nil {
		return time.Since(start), err
	}
	defer func() { err = errors.Join(err, mcp.close()) }()
	return untilRight(ctx, start, b.o.callTimeout, func() error { _, err := mcp.do(ctx, "goToDefinition", b.t); return err })
}

// untilRight calls try until it succeeds or timeout passes since start,
// and returns the time from start to the success.
func untilRight(ctx context.Context, start time.Time, timeout time.Duration, try func() error) (time.Duration, error) {
	for {
		err := try()
		if err == nil {
			return time.Since(start), nil
		}
		if time.Since(start) > timeout || ctx.Err() != nil {
			return time.Since(start), err
		}
		if err := sleep(ctx, coldGap); err != nil {
			return time.Since(start), err
		}
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// median of xs; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return round2((s[len(s)/2-1] + s[len(s)/2]) / 2)
}
