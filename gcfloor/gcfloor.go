// Package gcfloor keeps Go's garbage collector from running more often
// than every so many bytes of allocation, so that a process with a small
// live heap and a steady stream of short calls does not spend its tail
// latency on collections.
//
// Why: with the default GOGC=100, a heap of 4 MB live is collected after
// every 4 MB of allocation. `agentlsp mcp` allocates about 40 KB per
// navigation call, so it collected every hundred calls or so, and each
// collection (1.5-3 ms of concurrent marking on two processors, with its
// pauses) slowed the calls it overlapped: hover's p99 was 2.3-2.6 times
// its p50 with the collector on and 1.4-1.6 times with it off
// (docs/BENCHMARKS.md). A floor of headroom bytes between collections
// makes them rare while the live heap is small; once the live heap is
// larger than the floor, the collector paces itself as GOGC=100 would.
//
// How: after every collection, a finalizer re-armed on a sentinel sets
// the GC percent to max(100, headroom/live*100) (live counting stacks and
// globals, as the runtime's goal does), so the next collection comes
// after at least headroom bytes of new allocation. The finalizer
// runs on the runtime's finalizer goroutine; this package starts none.
// Memory costs at most headroom bytes more than GOGC=100 would hold, and
// GOMEMLIMIT, when set, still caps the heap.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds the GC percent the floor sets (a live heap of a few
// kilobytes would otherwise ask for millions).
const maxPercent = 100_000

// floor is the one active floor (the GC percent is process-wide).
var floor struct {
	sync.Mutex
	headroom uint64 // 0: stopped
	gen      uint64 // which Start the armed sentinel belongs to
	restore  int    // the percent before Start
}

// sentinel is what the finalizer is set on: large enough not to share a
// tiny-allocator block with a live object, which would keep it from ever
// being finalized.
type sentinel struct {
	gen uint64
	_   [3]*byte
}

// Start sets the floor to headroom bytes between collections until the
// returned stop is called; stop restores the GC percent as it was. When
// the environment sets GOGC, or a floor is already active, Start does
// nothing (the user's or the first caller's choice stands) and stop is a
// no-op. Start and stop do not block and are safe for concurrent use.
func Start(headroom uint64) (stop func()) {
	if headroom == 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	floor.Lock()
	defer floor.Unlock()
	if floor.headroom != 0 {
		return func() {}
	}
	floor.headroom = headroom
	floor.gen++
	gen := floor.gen
	live, scan := scanned()
	floor.restore = debug.SetGCPercent(percent(headroom, live, scan))
	arm(gen)
	return func() {
		floor.Lock()
		defer floor.Unlock()
		if floor.gen == gen && floor.headroom != 0 {
			floor.headroom = 0
			debug.SetGCPercent(floor.restore)
		}
	}
}

// arm sets the finalizer that retunes after the next collection.
func arm(gen uint64) {
	runtime.SetFinalizer(&sentinel{gen: gen}, retune)
}

// retune runs on the finalizer goroutine after a collection: it sets the
// percent for the live heap that collection left, and re-arms.
func retune(s *sentinel) {
	floor.Lock()
	defer floor.Unlock()
	if floor.headroom == 0 || s.gen != floor.gen {
		return // stopped: leave the percent stop restored
	}
	live, scan := scanned()
	debug.SetGCPercent(percent(floor.headroom, live, scan))
	arm(s.gen)
}

// heapMinimum is the runtime's least heap goal at GOGC=100 (4 MiB; less
// under the HeapMinimum512KiB experiment, which only makes the floor
// lower). The runtime scales it with the percent, so a percent that gives
// a small live heap its headroom would otherwise raise the least goal
// far above live+headroom: before the first collection, with nothing
// live yet, to gigabytes.
const heapMinimum = 4 << 20

// percent is the GC percent that puts the next collection headroom bytes
// after the last one left scan bytes to scan (live heap, stacks and
// globals; the runtime's goal is live + scan*percent/100), and whose
// scaled heap minimum does not exceed live+headroom. Never below the
// default 100.
func percent(headroom, live, scan uint64) int {
	p := uint64(maxPercent)
	if scan > 0 {
		p = headroom * 100 / scan
	}
	p = min(p, (live+headroom)*100/heapMinimum)
	return int(min(max(p, 100), maxPercent))
}

// scanned reads, as of the last collection, the live heap and what the
// runtime's goal is a percent of: the live heap, stacks and globals.
func scanned() (live, scan uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(s)
	for i, m := range s {
		if m.Value.Kind() != metrics.KindUint64 {
			return 0, 0
		}
		if i == 0 {
			live = m.Value.Uint64()
		}
		scan += m.Value.Uint64()
	}
	return live, scan
}
