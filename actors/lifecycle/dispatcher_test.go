package lifecycle

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main) and child processes.
func TestMain(m *testing.M) { testenv.Main(m) }

// goid is the running goroutine's id, from its stack header.
func goid() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return string(bytes.Fields(buf)[1])
}

// TestDispatcherReusesWorkers: a mailbox that wakes while a worker waits
// runs on that worker, not on a new goroutine; every scheduled function
// runs; Close ends the workers (the reaper joins them) and a function
// scheduled after it still runs.
func TestDispatcherReusesWorkers(t *testing.T) {
	r := &Reaper{}
	d := NewDispatcher(r, 300)
	// A worker that ends after its idle time while this goroutine waits
	// for the processor (a loaded machine) would never be seen waiting.
	d.idleFor = time.Hour
	seen := map[string]int{}
	const n = 50
	for range n {
		ran := make(chan string, 1)
		d.Schedule(func() { ran <- goid() })
		select {
		case id := <-ran:
			seen[id]++
		case <-time.After(30 * time.Second):
			t.Fatal("a scheduled function did not run")
		}
		// At least one: a Schedule that comes between a worker's count and
		// its receive starts another worker (a loaded machine does that).
		testenv.Eventually(t, 30*time.Second, "a worker waits for work", func() bool { return d.idle.Load() >= 1 })
	}
	if len(seen) > n/2 {
		t.Errorf("%d functions ran on %d goroutines, want the waiting worker reused", n, len(seen))
	}
	d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !r.Wait(ctx) {
		t.Fatal("the workers did not end after Close")
	}
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("a function scheduled after Close did not run")
	}
	d.Close() // twice is fine
	var nilD *Dispatcher
	nilD.Close()
}

// TestDispatcherWorkerEndsWhenIdle: a worker given nothing more to run
// ends by itself after its idle time, without Close.
func TestDispatcherWorkerEndsWhenIdle(t *testing.T) {
	r := &Reaper{}
	d := NewDispatcher(r, 300)
	d.idleFor = 20 * time.Millisecond
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) })
	<-ran
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !r.Wait(ctx) {
		t.Fatal("the idle worker did not end")
	}
	d.Close()
}
