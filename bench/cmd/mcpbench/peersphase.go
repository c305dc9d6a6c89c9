package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The peers phase: agentlsp and each --peer, every one on its own copy of
// the workspace with the same gopls and the same lean MCP client, calls
// interleaved as in the nav phase. It measures what issue 14's table
// compared: navigation, an edit on disk to diagnostics that show it, and a
// cold start.

// peerPoll is the pause between two diagnostics calls of a client whose
// answer did not show the edit yet.
const peerPoll = 50 * time.Millisecond

// peerSpec is one client of the phase: the adapter's name, the binary and
// the name the report gives it.
type peerSpec struct{ name, path, label string }

// PeersResult is the peers phase. Each slice has one entry per client, in
// Clients' order (agentlsp, the build measured, first).
type PeersResult struct {
	Clients []string `json:"clients"`
	Ops     []PeerOp `json:"operations"`
	// EditFirst is the first diagnostics answer after each write (right:
	// it shows the error written, or no longer shows it); EditRight the
	// time from the write to the first right answer, the call repeated
	// every 50 ms up to WaitMs.
	EditFirst []Side  `json:"edit_first"`
	EditRight []Side  `json:"edit_right"`
	WaitMs    float64 `json:"wait_ms"`
	// Cold is process start to the first right hover, ColdMs each run.
	Cold   []Side      `json:"cold"`
	ColdMs [][]float64 `json:"cold_ms"`
}

// PeerOp is one operation; a nil side is a client without it.
type PeerOp struct {
	Op    string  `json:"operation"`
	Sides []*Side `json:"sides"`
}

// peers runs the phase.
func (b *bench) peers(ctx context.Context) (r *PeersResult, err error) {
	specs := append([]peerSpec{{name: "agentlsp", path: b.bin, label: "agentlsp"}}, b.o.peers...)
	r = &PeersResult{WaitMs: msOf(b.o.peerWait)}
	wss := make([]string, len(specs))
	for i, c := range specs {
		r.Clients = append(r.Clients, c.label)
		wss[i] = filepath.Join(b.tmp, fmt.Sprintf("peer%d", i))
		if err := copyTree(b.src, wss[i]); err != nil {
			return nil, err
		}
	}
	if err := b.peersWarm(ctx, specs, wss, r); err != nil {
		return nil, err
	}
	cold := make([]sample, len(specs))
	for i := range b.o.cold {
		for k := range specs {
			c := (i + k) % len(specs)
			cold[c].add(b.coldPeer(ctx, time.Now(), specs[c], wss[c]))
		}
	}
	if b.o.cold > 0 {
		for c := range specs {
			r.Cold, r.ColdMs = append(r.Cold, cold[c].side()), append(r.ColdMs, cold[c].ms())
		}
	}
	return r, ctx.Err()
}

// peersWarm starts every client once, then measures navigation and edits.
func (b *bench) peersWarm(ctx context.Context, specs []peerSpec, wss []string, r *PeersResult) (err error) {
	sides := make([]*peerSide, 0, len(specs))
	defer func() {
		for _, s := range sides {
			err = errors.Join(err, s.m.close())
		}
	}()
	for i, c := range specs {
		s, err := b.startPeer(ctx, c, wss[i])
		if err != nil {
			return err
		}
		sides = append(sides, s)
		fmt.Fprintf(b.log, "mcpbench: peers: started %s\n", c.label)
	}
	for _, op := range peerOps {
		if !slices.Contains(b.o.ops, op) || ctx.Err() != nil {
			continue
		}
		samples := make([]sample, len(sides))
		for i := range b.o.warmup + b.o.calls {
			for k := range sides {
				c := (i + k) % len(sides)
				if !sides[c].has(op) {
					continue
				}
				d, err := sides[c].do(ctx, op, b.t)
				if i >= b.o.warmup {
					samples[c].add(d, err)
				}
			}
		}
		po := PeerOp{Op: op}
		for c, s := range sides {
			var side *Side
			if s.has(op) {
				v := samples[c].side()
				side = &v
			}
			po.Sides = append(po.Sides, side)
		}
		r.Ops = append(r.Ops, po)
		fmt.Fprintf(b.log, "mcpbench: peers: %s measured\n", op)
	}
	if b.orig != "" {
		r.EditFirst, r.EditRight = b.peerEdits(ctx, sides)
	}
	return ctx.Err()
}

// peerEdits writes the declaring file broken and restored in turn, in each
// client's copy, and times the diagnostics of the caller.
func (b *bench) peerEdits(ctx context.Context, sides []*peerSide) (first, right []Side) {
	firsts, rights := make([]sample, len(sides)), make([]sample, len(sides))
	n := b.o.peerEdits + b.o.peerEdits%2 // ends restored
	for i := range n {
		want := i%2 == 0
		text := b.orig
		if want {
			text = b.broken
		}
		for k := range sides {
			c := (i + k) % len(sides)
			if sleep(ctx, editGap) != nil {
				break
			}
			fd, ferr, rd, rerr := b.peerEdit(ctx, sides[c], text, want)
			firsts[c].add(fd, ferr)
			rights[c].add(rd, rerr)
		}
	}
	for c, s := range sides {
		first, right = append(first, firsts[c].side()), append(right, rights[c].side())
		fmt.Fprintf(b.log, "mcpbench: peers: %s edit: first answer right %d of %d, right within %v %d of %d\n",
			s.name, first[c].Correct, first[c].Calls, b.o.peerWait, right[c].Correct, right[c].Calls)
	}
	return first, right
}

// peerEdit writes text into the client's copy, then asks for the caller's
// diagnostics until the answer is right or b.o.peerWait has passed: the
// first answer's time and error, and the time to the right one (or the
// last error).
func (b *bench) peerEdit(ctx context.Context, s *peerSide, text string, want bool) (time.Duration, error, time.Duration, error) {
	start := time.Now()
	if err := writeFile(abs(s.m.root, b.t.Def), text); err != nil {
		return 0, err, 0, err
	}
	fd, ferr := s.diagnose(ctx, start, b.t, want)
	d, err := fd, ferr
	for isWrong(err) && time.Since(start) < b.o.peerWait && sleep(ctx, peerPoll) == nil {
		d, err = s.diagnose(ctx, start, b.t, want)
	}
	return fd, ferr, d, err
}

// coldPeer starts a client on ws and hovers at the call until the answer
// is right; the time is from start.
func (b *bench) coldPeer(ctx context.Context, start time.Time, c peerSpec, ws string) (d time.Duration, err error) {
	s, err := b.startPeer(ctx, c, ws)
	if err != nil {
		return time.Since(start), err
	}
	defer func() { err = errors.Join(err, s.m.close()) }()
	return untilRight(ctx, start, b.o.callTimeout, func() error { _, err := s.do(ctx, "hover", b.t); return err })
}

// writePeers renders the phase as one table, a column per client.
func writePeers(b *strings.Builder, r *PeersResult, calls int) {
	fmt.Fprintf(b, "\n### Other MCP bridges side by side (each on its own copy of the workspace, the same gopls, the same lean MCP client; ms)\n\n")
	b.WriteString("| |")
	for _, c := range r.Clients {
		fmt.Fprintf(b, " %s |", c)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(r.Clients)) + "\n")
	for _, o := range r.Ops {
		fmt.Fprintf(b, "| %s, %d calls: p50 / p99 (right) |", o.Op, calls)
		for _, s := range o.Sides {
			if s == nil {
				b.WriteString(" no such tool |")
				continue
			}
			fmt.Fprintf(b, " %.2f / %.2f (%s) |", s.P50, s.P99, of(*s))
		}
		b.WriteString("\n")
	}
	row := func(what string, sides []Side, cell func(Side) string) {
		if len(sides) == 0 {
			return
		}
		fmt.Fprintf(b, "| %s |", what)
		for _, s := range sides {
			fmt.Fprintf(b, " %s |", cell(s))
		}
		b.WriteString("\n")
	}
	row("edit on disk, the first diagnostics answer after the write: p50 / p99 (right)", r.EditFirst,
		func(s Side) string { return fmt.Sprintf("%.2f / %.2f (%s)", s.P50, s.P99, of(s)) })
	row(fmt.Sprintf("edit on disk to a right diagnostics answer, asking every 50 ms for up to %.0f ms: p50 / max (right in time)", r.WaitMs), r.EditRight,
		func(s Side) string { return fmt.Sprintf("%s / %.2f (%s)", rightP50(s), s.Max, of(s)) })
	row("cold start to the first right hover: median (runs)", r.Cold, func(s Side) string {
		return fmt.Sprintf("%s (%s)", rightP50(s), of(s))
	})
	b.WriteString("\nRight: definition names the called function's declaration, references the call site, hover shows the signature; " +
		"a diagnostics answer shows the error written on the call's line, or no longer shows it (agentlsp's must also say fresh).\n")
}

// rightP50 is the p50 of the right answers, n/a for none.
func rightP50(s Side) string {
	if s.Right.Count == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", s.Right.P50)
}
