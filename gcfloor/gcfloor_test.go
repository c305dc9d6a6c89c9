package gcfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// These tests change the process's GC percent, so none of them runs in
// parallel, and each stops its floor.

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		headroom, live, scan uint64
		want                 int
	}{
		{32 * mib, 4 * mib, 4 * mib, 800},   // the next collection 32 MiB on
		{32 * mib, 4 * mib, 8 * mib, 400},   // stacks and globals count as the runtime counts them
		{32 * mib, 64 * mib, 64 * mib, 100}, // a heap larger than the floor: GOGC=100
		{32 * mib, 32 * mib, 32 * mib, 100}, // equal: the default already leaves the floor
		{1 * mib, 3 * mib / 2, 3 * mib / 2, 100},
		{48 * mib, 16 * mib, 16 * mib, 300},
		// A small heap: the percent's scaled heap minimum (4 MiB at 100)
		// must stay at live+headroom, not 32 times 32 MiB.
		{32 * mib, 1 * mib, 1 * mib, 825},
		{32 * mib, 0, 0, 800},           // before the first collection
		{1 << 40, 0, 0, maxPercent},     // bounded
		{1 << 40, 100, 100, maxPercent}, // bounded
	}
	for _, tt := range tests {
		if got := percent(tt.headroom, tt.live, tt.scan); got != tt.want {
			t.Errorf("percent(%d, %d, %d) = %d, want %d", tt.headroom, tt.live, tt.scan, got, tt.want)
		}
	}
}

// TestGoalIsLivePlusHeadroom: the runtime's own heap goal, after Start
// and after a collection, is about the live heap plus the headroom, not
// more (a percent's scaled heap minimum once put it at gigabytes).
func TestGoalIsLivePlusHeadroom(t *testing.T) {
	const headroom = 64 << 20
	runtime.GC()
	stop := Start(headroom)
	defer stop()
	check := func(when string) {
		t.Helper()
		live, goal := read("/gc/heap/live:bytes"), read("/gc/heap/goal:bytes")
		if goal < live+headroom*9/10 || goal > live+headroom*5/4 {
			t.Errorf("%s: heap goal %d MiB with %d MiB live, want about live + %d MiB", when, goal>>20, live>>20, headroom>>20)
		}
	}
	check("after Start")
	runtime.GC()
	waitPercent(t, func(p uint64) bool { return p > 100 }, "above 100 after a collection")
	check("after a collection")
}

// TestFloorSpacesCollections allocates the same garbage with and without
// a floor and counts the collections: the floor is what the package is
// for.
func TestFloorSpacesCollections(t *testing.T) {
	const garbage = 48 << 20
	runtime.GC()
	without := collections(t, garbage)
	stop := Start(256 << 20)
	defer stop()
	runtime.GC()
	waitPercent(t, func(p uint64) bool { return p > 100 }, "above 100 with a floor over a small heap")
	with := collections(t, garbage)
	if without < 4 || with > 1 {
		t.Errorf("collections while allocating %d MiB: %d without a floor, %d with a 256 MiB floor; want at least 4 without and at most 1 with",
			garbage>>20, without, with)
	}
}

// TestLargeHeapPacesAsDefault: a live heap larger than the floor leaves
// the percent at the default.
func TestLargeHeapPacesAsDefault(t *testing.T) {
	stop := Start(8 << 20)
	defer stop()
	held := make([]byte, 16<<20)
	runtime.GC()
	waitPercent(t, func(p uint64) bool { return p == 100 }, "100 with 16 MiB live and an 8 MiB floor")
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	waitPercent(t, func(p uint64) bool { return p > 100 }, "above 100 once the 16 MiB are garbage")
}

// TestStopRestores: stop puts the percent back, and a later collection
// does not retune it.
func TestStopRestores(t *testing.T) {
	before := gcPercent()
	stop := Start(256 << 20)
	if gcPercent() <= 100 {
		t.Fatalf("GC percent = %d right after Start(256 MiB), want above 100", gcPercent())
	}
	stop()
	stop() // twice is harmless
	if got := gcPercent(); got != before {
		t.Fatalf("GC percent after stop = %d, want %d as before Start", got, before)
	}
	for range 3 {
		runtime.GC()
	}
	runtime.Gosched()
	if got := gcPercent(); got != before {
		t.Errorf("GC percent after stop and three collections = %d, want %d", got, before)
	}
}

// TestOneFloorAndTheUsersGOGC: a second Start, or one under a GOGC the
// user set, changes nothing.
func TestOneFloorAndTheUsersGOGC(t *testing.T) {
	before := gcPercent()
	t.Setenv("GOGC", "100")
	Start(256 << 20)() // a no-op, and its stop too
	if got := gcPercent(); got != before {
		t.Errorf("GC percent with GOGC set = %d, want %d unchanged", got, before)
	}
	t.Setenv("GOGC", "")
	stop := Start(256 << 20)
	defer stop()
	set := gcPercent()
	Start(1 << 20)()
	if got := gcPercent(); got != set {
		t.Errorf("GC percent after a second Start and its stop = %d, want the first floor's %d", got, set)
	}
}

// collections allocates n bytes of garbage in 64 KiB pieces and returns
// how many collections ran meanwhile.
func collections(t *testing.T, n int) uint64 {
	t.Helper()
	var sink []byte
	before := read("/gc/cycles/automatic:gc-cycles")
	for range n / (64 << 10) {
		sink = make([]byte, 64<<10)
		sink[0] = 1
	}
	runtime.KeepAlive(sink)
	return read("/gc/cycles/automatic:gc-cycles") - before
}

// waitPercent waits for the finalizer to have retuned the percent after
// a collection, collecting again meanwhile: a finalizer that ran during
// the caller's collection, before its figures were out, re-arms a sentinel
// that collection keeps, and only the next one retunes.
func waitPercent(t *testing.T, ok func(uint64) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(gcPercent()) {
		if time.Now().After(deadline) {
			live, scan := scanned()
			t.Fatalf("GC percent = %d after 10 s (live %d, scan %d, goal %d), want %s", gcPercent(), live, scan, read("/gc/heap/goal:bytes"), want)
		}
		time.Sleep(5 * time.Millisecond)
		runtime.GC()
	}
}

func gcPercent() uint64 { return read("/gc/gogc:percent") }

func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
