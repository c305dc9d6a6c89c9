package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/messages"
)

func numCPU() int { return runtime.NumCPU() }

// dial attaches to (or starts) the daemon of the shared copy.
func (b *bench) dial(ctx context.Context) (*agentlsp.Runtime, error) {
	return agentlsp.Dial(ctx, b.shared, daemon.WithCommand(b.bin), daemon.WithVersion("devel"))
}

// side is one runtime measured.
type side struct {
	name string
	s    *agentlsp.Session
	ws   string
}

// runtimes starts the embedded runtime and attaches to the daemon.
func (b *bench) runtimes(ctx context.Context) (emb, sh *agentlsp.Runtime, err error) {
	emb, err = agentlsp.Start(ctx, agentlsp.Config{Workspace: b.embedded})
	if err != nil {
		return nil, nil, err
	}
	if sh, err = b.dial(ctx); err != nil {
		emb.Shutdown(context.Background())
		return nil, nil, err
	}
	return emb, sh, nil
}

// latency measures hovers and edits on both sides, interleaved.
func (b *bench) latency(ctx context.Context, w io.Writer) error {
	emb, sh, err := b.runtimes(ctx)
	if err != nil {
		return err
	}
	defer emb.Shutdown(context.Background())
	defer sh.Shutdown(context.Background())
	sides := []*side{{"embedded", emb.Session("bench"), b.embedded}, {"daemon", sh.Session("bench"), b.shared}}
	for _, s := range sides {
		fmt.Fprintf(b.log, "daemonbench: warming the %s side\n", s.name)
		if err := b.warm(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	hovers, own := make([][]time.Duration, 2), make([][]time.Duration, 2)
	for i := range b.o.calls {
		for k := range sides {
			s := sides[(i+k)%2]
			d, server, err := b.hover(ctx, s)
			if err != nil {
				return fmt.Errorf("%s hover: %w", s.name, err)
			}
			hovers[(i+k)%2] = append(hovers[(i+k)%2], d)
			own[(i+k)%2] = append(own[(i+k)%2], d-server)
		}
	}
	edits := make([][]time.Duration, 2)
	for i := range b.o.edits {
		for k := range sides {
			s := sides[(i+k)%2]
			d, err := b.edit(ctx, s, i%2 == 0)
			if err != nil {
				return fmt.Errorf("%s edit: %w", s.name, err)
			}
			edits[(i+k)%2] = append(edits[(i+k)%2], d)
		}
	}
	fmt.Fprintf(w, "## Latency (Go API, %d hovers and %d edits per side, interleaved)\n\n", b.o.calls, b.o.edits)
	fmt.Fprintln(w, "| operation | embedded p50 | daemon p50 | p50 difference | embedded p99 | daemon p99 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, row := range []struct {
		name string
		ds   [][]time.Duration
	}{{"hover", hovers}, {"hover less its gopls's own time (the answer's ServerTime): the runtime's and the transport's part", own},
		{"edit to fresh diagnostics", edits}} {
		e, d := statsOf(row.ds[0]), statsOf(row.ds[1])
		fmt.Fprintf(w, "| %s | %.3f ms | %.3f ms | %+.3f ms | %.3f ms | %.3f ms |\n", row.name, e.p50, d.p50, d.p50-e.p50, e.p99, d.p99)
	}
	fmt.Fprintln(w)
	return nil
}

// warm waits until the side answers the call site's hover and fresh
// diagnostics.
func (b *bench) warm(ctx context.Context, s *side) error {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		reps, err := s.s.Diagnostics(ctx, []string{filepath.Join(s.ws, b.t.Call.Path)})
		if err == nil && reps[0].Status == messages.StatusFresh {
			if _, _, err := b.hover(ctx, s); err == nil {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not ready after 5 minutes")
}

// hover asks for the hover at the call site; it returns the call's time
// and the part of it its gopls took (each side has its own gopls process).
func (b *bench) hover(ctx context.Context, s *side) (time.Duration, time.Duration, error) {
	time.Sleep(b.o.gap)
	start := time.Now()
	h, err := s.s.Hover(ctx, filepath.Join(s.ws, b.t.Call.Path),
		agentlsp.Position{Line: uint32(b.t.Call.Line - 1), Character: uint32(b.t.Call.Column - 1)})
	d := time.Since(start)
	if err == nil && (h.Hover == nil || !strings.Contains(h.Hover.Text, "func")) {
		err = fmt.Errorf("empty hover")
	}
	if err != nil {
		return d, 0, err
	}
	return d, h.ServerTime, nil
}

// edit breaks (or restores) the call and waits for fresh diagnostics that
// show (or no longer show) it.
func (b *bench) edit(ctx context.Context, s *side, breakIt bool) (time.Duration, error) {
	path := filepath.Join(s.ws, b.t.Call.Path)
	orig, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	text := string(orig)
	if breakIt {
		lines := strings.SplitAfter(text, "\n")
		lines[b.t.Call.Line-1] = strings.Replace(lines[b.t.Call.Line-1], "."+b.t.Name+"(", "."+b.t.Name+"Broken(", 1)
		text = strings.Join(lines, "")
	}
	start := time.Now()
	res, err := s.s.Edit(ctx, path, text, agentlsp.WithAll())
	d := time.Since(start)
	if err != nil {
		return d, err
	}
	if res.Status != messages.StatusFresh || (len(res.Files[0].Diagnostics) > 0) != breakIt {
		return d, fmt.Errorf("status %s, %d diagnostics (broken: %v)", res.Status, len(res.Files[0].Diagnostics), breakIt)
	}
	return d, nil
}

// attach measures attaching to the running daemon, in process and as a
// command, against a command that starts its own gopls.
func (b *bench) attach(ctx context.Context, w io.Writer) error {
	var dials []time.Duration
	for range b.o.attaches {
		start := time.Now()
		rt, err := b.dial(ctx)
		if err != nil {
			return err
		}
		dials = append(dials, time.Since(start))
		rt.Shutdown(context.Background())
	}
	at := fmt.Sprintf("%s:%d:%d", b.t.Call.Path, b.t.Call.Line, b.t.Call.Column)
	query := func(ws string, shared bool) ([]time.Duration, error) {
		var ds []time.Duration
		for range 5 {
			args := []string{"query", "--workspace", ws, "hover", at}
			if shared {
				args = append(args, "--shared")
			}
			start := time.Now()
			if out, err := exec.CommandContext(ctx, b.bin, args...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("agentlsp %v: %v\n%s", args, err, out)
			}
			ds = append(ds, time.Since(start))
		}
		return ds, nil
	}
	shq, err := query(b.shared, true)
	if err != nil {
		return err
	}
	embq, err := query(b.embedded, false)
	if err != nil {
		return err
	}
	d, s, e := statsOf(dials), statsOf(shq), statsOf(embq)
	fmt.Fprintf(w, "## Attach\n\n| what | p50 | max |\n|---|---|---|\n")
	fmt.Fprintf(w, "| agentlsp.Dial to the running daemon (%d) | %.1f ms | %.1f ms |\n", len(dials), d.p50, d.p99)
	fmt.Fprintf(w, "| `agentlsp query --shared hover` (process, attach, answer; 5) | %.1f ms | %.1f ms |\n", s.p50, s.p99)
	fmt.Fprintf(w, "| `agentlsp query hover` (process, own gopls; 5) | %.1f ms | %.1f ms |\n\n", e.p50, e.p99)
	return nil
}
