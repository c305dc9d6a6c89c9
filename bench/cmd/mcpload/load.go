package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"
)

// load starts the clients, makes calls for the duration (killing servers
// if asked), stops the clients and checks that no process is left. It
// returns the report; an error only when the clients could not start.
func (b *loadTest) load(ctx context.Context) (*Report, error) {
	o := b.o
	rep := &Report{Machine: machine(), Params: paramsOf(o)}
	began := time.Now()
	clients, err := b.startClients(ctx)
	if err != nil {
		return nil, err
	}
	rep.Startup = b.ready(ctx, clients)
	fmt.Fprintf(b.log, "mcpload: %d clients ready in %.1f s; %d x %d calls for %v", len(clients), time.Since(began).Seconds(),
		o.clients, o.concurrency, o.duration)
	if o.killEvery > 0 {
		fmt.Fprintf(b.log, ", a server killed every %v", o.killEvery)
	}
	fmt.Fprintln(b.log)
	rep.Machine.LoadBefore = loadAvg()
	rec := newRecorder()
	stop := make(chan struct{})
	smp := &sampler{clients: clients, procs: b.procs, began: rec.began}
	smp.start(ctx, stop, o.sampleEvery)
	var kl *killer
	if o.killEvery > 0 {
		kl = &killer{clients: clients, procs: b.procs, rng: rand.New(rand.NewPCG(o.seed, 1)), began: rec.began,
			kinds: o.killKinds}
		kl.start(ctx, stop, o.killEvery)
		rec.killer = kl
	}
	b.work(ctx, clients, rec, stop)
	smp.take()
	<-smp.done
	if kl != nil {
		<-kl.done
	}
	rep.Machine.LoadAfter = loadAvg()
	rep.CallsS = round2(time.Since(rec.began).Seconds())
	rep.Interrupted = ctx.Err() != nil
	b.finish(rep, clients, rec, smp, kl)
	return rep, nil
}

// finish closes the clients, looks for leftovers and fills in the report;
// kl is nil when no server was killed.
func (b *loadTest) finish(rep *Report, clients []*client, rec *recorder, smp *sampler, kl *killer) {
	fmt.Fprintf(b.log, "mcpload: calls done after %.1f s; closing the clients\n", rep.CallsS)
	rep.Clients = b.stopClients(clients)
	rep.Processes = b.leftovers()
	if left, err := os.ReadDir(b.childTmp); err == nil {
		for _, e := range left {
			rep.Processes.TempLeft = append(rep.Processes.TempLeft, e.Name())
		}
	}
	var restarted []string
	if kl != nil {
		restarted = b.o.killKinds
	}
	rep.Memory = smp.memory(b.o.warmup, b.o.flatMB, restarted)
	rep.Stderr = b.stderrSummary()
	rep.fill(rec)
	if kl != nil {
		rep.Kills = kl.counts()
	}
}

// startClients starts every client, in parallel; on error it closes those
// that started.
func (b *loadTest) startClients(ctx context.Context) ([]*client, error) {
	clients := make([]*client, b.o.clients)
	errs := make([]error, b.o.clients)
	var wg sync.WaitGroup
	for i := range clients {
		// Starts one client; joined by wg.Wait below.
		wg.Go(func() { clients[i], errs[i] = startClient(ctx, i, b.o, b) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		var started []*client
		for _, c := range clients {
			if c != nil {
				started = append(started, c)
			}
		}
		b.stopClients(started)
		b.leftovers()
		return nil, err
	}
	return clients, nil
}

// readyWithin bounds how long a client's first calls may take.
const readyWithin = 90 * time.Second

// ready makes each client's first calls, not counted in the load: the
// diagnostics of a Go and a Python file, which start both servers, asked
// again until both are fresh (a cold pyright takes longer than the
// diagnostics wait) or readyWithin has passed.
func (b *loadTest) ready(ctx context.Context, clients []*client) []StartupResult {
	out := make([]StartupResult, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		// One client's first calls; joined by wg.Wait below.
		wg.Go(func() { out[i] = c.ready(ctx) })
	}
	wg.Wait()
	return out
}

func (c *client) ready(ctx context.Context) StartupResult {
	start := time.Now()
	r := StartupResult{Client: c.id}
	for {
		r.Calls++
		raw, err := c.call(ctx, "diagnostics", map[string]any{"files": []string{"go/main.go", "py/report.py"}})
		var a diagAnswer
		switch {
		case err != nil:
			r.Error = err.Error()
		case json.Unmarshal(raw, &a) != nil:
			r.Error = "undecodable: " + string(raw)
		default:
			r.Error, r.Statuses = "", nil
			for _, f := range a.Files {
				r.Statuses = append(r.Statuses, f.Path+": "+f.Status)
			}
		}
		r.Ms = round2(float64(time.Since(start).Microseconds()) / 1000)
		fresh := r.Error == "" && len(a.Files) == 2 && a.Files[0].Status == "fresh" && a.Files[1].Status == "fresh"
		if fresh || time.Since(start) > readyWithin || sleep(ctx, 500*time.Millisecond) != nil {
			return r
		}
	}
}

// work runs every client's workers until the duration has passed (then
// closes stop) or ctx is done, and waits for their calls in flight.
func (b *loadTest) work(ctx context.Context, clients []*client, rec *recorder, stop chan struct{}) {
	nav := navCases()
	var wg sync.WaitGroup
	for _, c := range clients {
		for id := range b.o.concurrency {
			w := newWorker(c, id, nav, b.o.seed)
			// One worker; it returns after its call in flight once stop is
			// closed or ctx is done; joined by wg.Wait below.
			wg.Go(func() { w.run(ctx, stop, rec) })
		}
	}
	t := time.NewTimer(b.o.duration)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	close(stop)
	fmt.Fprintf(b.log, "mcpload: stopping: waiting for the calls in flight\n")
	wg.Wait()
}

// stopClients closes every client in parallel.
func (b *loadTest) stopClients(clients []*client) []ClientExit {
	out := make([]ClientExit, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		// Closes one client; joined by wg.Wait below.
		wg.Go(func() {
			d, err := c.close()
			out[i] = ClientExit{Client: c.id, Pid: c.pid, ExitMs: round2(float64(d.Microseconds()) / 1000)}
			if err != nil {
				out[i].Error = err.Error()
			}
		})
	}
	wg.Wait()
	return out
}

// leftovers waits up to the grace period for every process of the run to
// be gone, then kills and reports the others.
func (b *loadTest) leftovers() ProcessReport {
	deadline := time.Now().Add(b.o.grace)
	left := b.procs.leftovers()
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = b.procs.leftovers()
	}
	rep := ProcessReport{Seen: b.procs.counts(), Left: []string{}}
	for _, p := range left {
		rep.Left = append(rep.Left, fmt.Sprintf("%s pid %d (pgid %d, parent %d, %s)", p.kind, p.pid, p.pgid, p.ppid, p.comm))
		kill(p.procInfo)
	}
	return rep
}

// machine describes this machine.
func machine() Machine {
	return Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}
