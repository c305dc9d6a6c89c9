package watcher_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/watcher"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// probeTarget records what a watcher sent: the changed paths, then the
// last Seq, as a router would.
type probeTarget struct {
	mu      sync.Mutex
	changed map[string]bool
	seen    atomic.Uint64
}

func (p *probeTarget) has(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed[path]
}

func startProbed(t *testing.T, debounce time.Duration, portable bool) (*actortest.Harness, string, *watcher.Probe, *probeTarget, *actor.PID) {
	h := actortest.New(t)
	ws := t.TempDir()
	tg := &probeTarget{changed: map[string]bool{}}
	target := h.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if m, ok := ctx.Message().(*messages.FilesChanged); ok {
			tg.mu.Lock()
			for _, c := range m.Changes {
				tg.changed[c.Path] = true
			}
			tg.mu.Unlock()
			tg.seen.Store(m.Seq)
		}
	}))
	probe := watcher.NewProbe()
	w := h.Sys.Root.Spawn(watcher.NewProps(watcher.Config{Workspace: ws, Target: target, Reaper: h.Reaper,
		Debounce: debounce, Probe: probe, Portable: portable,
		FileSystem: func(string) string { return "" }})) // the probe's own rules, whatever holds the test's files
	h.Track(w)
	h.Track(target)
	testenv.Eventually(t, 10*time.Second, "watcher ready", func() bool {
		return h.Ask(w, &messages.GetWatcherStatus{}).(*messages.WatcherStatus).Ready
	})
	return h, ws, probe, tg, w
}

// Quiet is the promise a router skips a barrier on: when it says so, every
// change made before has reached the target. After each of many writes the
// probe is asked until it first says quiet (the moment most exposed to the
// race between the reader, the actor and the check); the change must have
// arrived by then.
func TestProbeQuietMeansEveryChangeArrived(t *testing.T) {
	_, ws, probe, tg, _ := startProbed(t, time.Millisecond, false)
	testenv.Eventually(t, 10*time.Second, "quiet at rest", func() bool { return probe.Quiet(tg.seen.Load()) })
	var wrong, never int
	deadline := time.Now().Add(30 * time.Second)
	n := 0
	for ; n < 300 && time.Now().Before(deadline); n++ {
		path := filepath.Join(ws, fmt.Sprintf("f%03d.txt", n))
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		quiet := false
		for start := time.Now(); !quiet && time.Since(start) < 5*time.Second; runtime.Gosched() {
			quiet = probe.Quiet(tg.seen.Load())
		}
		switch {
		case !quiet:
			never++
		case !tg.has(path):
			wrong++
		}
	}
	if wrong > 0 || never > 0 {
		t.Errorf("of %d writes, Quiet said so %d times before the change had arrived and %d times never", n, wrong, never)
	}
}

// A change pending in the debounce window is not quiet; the barrier that
// flushes it makes it so, for a target that handled the batch only.
func TestProbeWaitsForTheTarget(t *testing.T) {
	h, ws, probe, tg, w := startProbed(t, time.Hour, false)
	testenv.Eventually(t, 10*time.Second, "quiet at rest", func() bool { return probe.Quiet(tg.seen.Load()) })
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if probe.Quiet(tg.seen.Load()) {
		t.Fatal("quiet right after a write")
	}
	time.Sleep(50 * time.Millisecond) // the event read, pending in the window
	if probe.Quiet(tg.seen.Load()) {
		t.Fatal("quiet with a change pending in the debounce window")
	}
	h.Sys.Root.Send(w, &messages.WatchBarrier{ID: 1})
	testenv.Eventually(t, 10*time.Second, "the barrier's batch", func() bool { return tg.has(filepath.Join(ws, "a.txt")) })
	seq := tg.seen.Load()
	testenv.Eventually(t, 10*time.Second, "quiet once the target has the batch", func() bool { return probe.Quiet(seq) })
	if probe.Quiet(seq - 1) {
		t.Error("quiet for a target that has not handled the last batch")
	}
}

// fsnotify's source cannot tell: never quiet.
func TestProbePortableNeverQuiet(t *testing.T) {
	_, _, probe, tg, _ := startProbed(t, time.Millisecond, true)
	time.Sleep(100 * time.Millisecond)
	if probe.Quiet(tg.seen.Load()) {
		t.Error("quiet on fsnotify's source")
	}
}

// A barrier's batch holds every change made before it was asked, however
// many barriers are in flight: marker files are reused, never written
// twice while an event of theirs waits (the kernel would merge the two).
func TestBarriersCoverEveryEarlierChange(t *testing.T) {
	h := actortest.New(t)
	ws := t.TempDir()
	type batch struct {
		changed  []string
		barriers []uint64
	}
	batches := make(chan batch, 1000)
	target := h.Sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if m, ok := ctx.Message().(*messages.FilesChanged); ok {
			var b batch
			for _, c := range m.Changes {
				b.changed = append(b.changed, filepath.Base(c.Path))
			}
			b.barriers = m.Barriers
			batches <- b
		}
	}))
	w := h.Sys.Root.Spawn(watcher.NewProps(watcher.Config{Workspace: ws, Target: target, Reaper: h.Reaper, Debounce: time.Hour}))
	h.Track(w)
	h.Track(target)
	testenv.Eventually(t, 10*time.Second, "watcher ready", func() bool {
		return h.Ask(w, &messages.GetWatcherStatus{}).(*messages.WatcherStatus).Ready
	})
	const rounds, inFlight = 40, 5
	seen := map[string]bool{}
	done := map[uint64]bool{}
	for r := range rounds {
		var want []string
		for i := range inFlight { // a change, then a barrier, five times before any answer
			name := fmt.Sprintf("r%02d-%d", r, i)
			if err := os.WriteFile(filepath.Join(ws, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			want = append(want, name)
			h.Sys.Root.Send(w, &messages.WatchBarrier{ID: uint64(r*inFlight + i + 1)})
		}
		for i := range inFlight {
			id := uint64(r*inFlight + i + 1)
			for !done[id] {
				select {
				case b := <-batches:
					for _, c := range b.changed {
						seen[c] = true
					}
					for _, d := range b.barriers {
						done[d] = true
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("barrier %d never completed", id)
				}
			}
			if !seen[want[i]] {
				t.Fatalf("barrier %d completed before %s, written before it, was reported", id, want[i])
			}
		}
	}
}
