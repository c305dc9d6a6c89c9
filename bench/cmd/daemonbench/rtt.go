package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// rtt measures the round trip of a message the router answers at once
// (GetRouterStatus), through the daemon and embedded.
func (b *bench) rtt(ctx context.Context, w io.Writer) error {
	emb, sh, err := b.runtimes(ctx)
	if err != nil {
		return err
	}
	defer emb.Shutdown(context.Background())
	defer sh.Shutdown(context.Background())
	var e, d []time.Duration
	for range b.o.calls {
		for i, rt := range []interface {
			Servers(context.Context) ([]messages.ServerInfo, error)
		}{emb, sh} {
			time.Sleep(b.o.gap)
			start := time.Now()
			if _, err := rt.Servers(ctx); err != nil {
				return err
			}
			if i == 0 {
				e = append(e, time.Since(start))
			} else {
				d = append(d, time.Since(start))
			}
		}
	}
	var eo, do []time.Duration
	path := filepath.Join(b.t.Call.Path)
	for range b.o.calls {
		for i, rt := range []*agentlsp.Runtime{emb, sh} {
			ws := []string{b.embedded, b.shared}[i]
			time.Sleep(b.o.gap)
			start := time.Now()
			if err := rt.Session("rtt").Open(ctx, filepath.Join(ws, path)); err != nil {
				return err
			}
			if i == 0 {
				eo = append(eo, time.Since(start))
			} else {
				do = append(do, time.Since(start))
			}
		}
	}
	var eh, dh []time.Duration
	for k := range b.o.calls {
		for i, rt := range []*agentlsp.Runtime{emb, sh} {
			ws := []string{b.embedded, b.shared}[i]
			uri := "file://" + filepath.Join(ws, path)
			params, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": uri},
				"position": map[string]int{"line": b.t.Call.Line - 1, "character": b.t.Call.Column - 1}})
			time.Sleep(b.o.gap)
			start := time.Now()
			res, err := rt.System().Root.RequestFuture(rt.Router(), &messages.FileRequest{ID: uint64(k + 1), Path: filepath.Join(ws, path),
				Method: "textDocument/hover", Params: params}, 10*time.Second).Result()
			if err != nil {
				return err
			}
			if fr, ok := res.(*messages.FileResponse); !ok || len(fr.Results) != 1 || fr.Results[0].Err != nil {
				return fmt.Errorf("hover: %+v", res)
			}
			if i == 0 {
				eh = append(eh, time.Since(start))
			} else {
				dh = append(dh, time.Since(start))
			}
		}
	}
	fmt.Fprintf(w, "## Round trips (%d each, interleaved)\n\n", b.o.calls)
	fmt.Fprintf(w, "| message | embedded p50 | daemon p50 | difference | embedded p99 | daemon p99 |\n|---|---|---|---|---|---|\n")
	for _, row := range []struct {
		name string
		e, d []time.Duration
	}{{"GetRouterStatus (answered at once)", e, d}, {"SyncDocument of an open file (stat, text back)", eo, do},
		{"FileRequest textDocument/hover (gopls answers)", eh, dh}} {
		es, ds := statsOf(row.e), statsOf(row.d)
		fmt.Fprintf(w, "| %s | %.3f ms | %.3f ms | %+.3f ms | %.3f ms | %.3f ms |\n", row.name, es.p50, ds.p50, ds.p50-es.p50, es.p99, ds.p99)
	}
	fmt.Fprintln(w)
	return nil
}
