package main

import (
	"context"
	"fmt"
	"io"
	"time"

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
	es, ds := statsOf(e), statsOf(d)
	fmt.Fprintf(w, "## Round trip of a message the router answers at once (GetRouterStatus, %d)\n\n", b.o.calls)
	fmt.Fprintf(w, "| embedded p50 | daemon p50 | difference | embedded p99 | daemon p99 |\n|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %.3f ms | %.3f ms | %+.3f ms | %.3f ms | %.3f ms |\n\n", es.p50, ds.p50, ds.p50-es.p50, es.p99, ds.p99)
	return nil
}
