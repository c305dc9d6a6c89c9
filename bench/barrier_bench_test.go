package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// The freshness barrier's cost. Before it answers, the router makes sure
// that every change on disk made before the call reached the servers:
// when the watcher's probe says nothing is on its way the barrier is
// skipped (BenchmarkSessionHover pays only the probe); when a file changed
// just before the call, the router writes a marker the watcher must see
// first. BenchmarkHoverAfterWrite writes an unrelated file (nobody has it
// open) before every hover: "write" is the write alone, "write+hover" the
// write and a hover that must take a barrier; their difference minus
// BenchmarkSessionHover is the barrier.
func BenchmarkHoverAfterWrite(b *testing.B) {
	ws, file := fakeWorkspace(b, 10)
	other := filepath.Join(ws, "unrelated.txt")
	write := func(i int) {
		if err := os.WriteFile(other, []byte(strconv.Itoa(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("write", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			write(i)
		}
	})
	b.Run("write+hover", func(b *testing.B) {
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
		before := barriers(b, rt)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			write(i)
			hover()
		}
		after := barriers(b, rt)
		taken := after.Taken - before.Taken
		b.ReportMetric(float64(taken)/float64(i), "barriers/op")
		if taken > 0 {
			b.ReportMetric(float64((after.Spent-before.Spent)/time.Duration(taken)), "ns/barrier")
		}
		// A write just before the call is still on its way (in the
		// kernel's queue or the watcher's batch) nearly always: a run
		// that took no barrier did not measure one.
		if i >= 20 && taken == 0 {
			b.Fatalf("%d hovers right after a write took no barrier", i)
		}
	})
}

// barriers reads the router's barrier counters.
func barriers(b *testing.B, rt *agentlsp.Runtime) messages.BarrierStats {
	b.Helper()
	res, err := rt.System().Root.RequestFuture(rt.Router(), &messages.GetRouterStatus{}, 5*time.Second).Result()
	if err != nil {
		b.Fatal(err)
	}
	st, ok := res.(*messages.RouterStatus)
	if !ok {
		b.Fatalf("router status = %T", res)
	}
	return st.Barriers
}
