package bench

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// Message routing: the hover round trip of request_bench_test.go one layer
// up, through the router (path -> (server, root) -> server actor, fan-out
// and merge), and through the whole embedding API (Session.Hover: read the
// file, check the position, sync it, route, parse the answer). Compare
// with BenchmarkRequestServerActor and BenchmarkRequestDirect.

// BenchmarkRequestRouter is a FileRequest round trip through the router.
func BenchmarkRequestRouter(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	p := startPipeline(b, ws)
	var ids atomic.Uint64
	p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams) // starts the server
	b.ReportAllocs()
	for b.Loop() {
		p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams)
	}
}

// BenchmarkRequestRouterParallel: many callers share the router and one
// server actor.
func BenchmarkRequestRouterParallel(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	p := startPipeline(b, ws)
	var ids atomic.Uint64
	p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := p.sys.Root.RequestFuture(p.router, &messages.FileRequest{
				ID: ids.Add(1), Path: file, Method: "textDocument/hover", Params: hoverParams,
			}, askTimeout).Result()
			if err != nil {
				b.Error(err)
				return
			}
			if r := res.(*messages.FileResponse); r.Err != nil || r.Results[0].Err != nil {
				b.Error(r.Err, r.Results[0].Err)
				return
			}
		}
	})
}

// BenchmarkResolve is the router's routing decision alone (root cache
// warm): a Resolve round trip.
func BenchmarkResolve(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	p := startPipeline(b, ws)
	b.ReportAllocs()
	for b.Loop() {
		if r := p.ask(b, p.router, &messages.Resolve{Path: file}).(*messages.Resolved); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkSessionHover is Session.Hover, the whole API path.
func BenchmarkSessionHover(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	rt := startRuntime(b, ws, 0)
	s := rt.Session("bench")
	ctx := context.Background()
	hover := func() {
		h, err := s.Hover(ctx, file, agentlsp.Position{Line: 1, Character: 2})
		if err != nil || h.Hover == nil {
			b.Fatalf("Hover = %+v, %v", h, err)
		}
	}
	hover()
	b.ReportAllocs()
	for b.Loop() {
		hover()
	}
}

// BenchmarkSessionHoverParallel: many sessions of one runtime hover at
// once over one shared server.
func BenchmarkSessionHoverParallel(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	rt := startRuntime(b, ws, 0)
	ctx := context.Background()
	if _, err := rt.Session("warm").Hover(ctx, file, agentlsp.Position{}); err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		s := rt.Session("bench-" + strconv.FormatInt(n.Add(1), 10))
		for pb.Next() {
			if _, err := s.Hover(ctx, file, agentlsp.Position{Line: 1, Character: 2}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRegistryMatch is the lookup of a file's servers in the
// built-in registry: Match, which the router and every Edit use, against
// ForPath, which copies each server (gopls's settings included).
func BenchmarkRegistryMatch(b *testing.B) {
	r, err := config.NewRegistry(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		match func(string) []*config.Server
	}{{"Match", r.Match}, {"ForPath", r.ForPath}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(f.match("/w/pkg/main.go")) != 1 {
					b.Fatal("gopls not matched")
				}
			}
		})
	}
}
