package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/transport"
)

// The driver: K sessions, each a goroutine of the harness, run a cold
// phase (every session's first edit, all at once, no server running), then
// a warm phase of a fixed number of operations each: an edit, then
// navsPerEdit navigations (hover and definition in turn), over the
// session's files. Edits write the new text to disk first (as an agent
// does), outside the timed part.

// The modes.
const (
	modeDirect     = "direct"
	modeRuntime    = "runtime"
	modePerSession = "per-session"
	modeSleep      = "sleep"
)

// client is what the driver drives: the runtime, or a baseline. Safe for
// concurrent use by every session.
type client interface {
	// edit gives file f the new text for session s and waits for the
	// diagnostics of that version, at most timeout.
	edit(ctx context.Context, s int, f *file, text string, timeout time.Duration) (outcome, error)
	// nav asks for hover (even k) or definition (odd k) in f.
	nav(ctx context.Context, s int, f *file, k int) error
	// close shuts the client and its servers down.
	close(ctx context.Context) error
}

// outcome is an edit's answer: its status, how many errors it reported
// in the edited file, and how many other files it reported (as new errors
// the edit caused elsewhere).
type outcome struct {
	status     messages.Status
	errors     int
	otherFiles int
	// report is what the answer said of the file, formatted for a wrong
	// one only (formatting every answer was harness work charged to the
	// runtime's process CPU); nil when there is none.
	report *messages.FileReport
}

// detail formats what the answer said of the file.
func (o outcome) detail() string {
	f := o.report
	if f == nil {
		return "no report"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status %s %q, servers %v", f.Status, f.Detail, f.Servers)
	for _, d := range f.Diagnostics {
		fmt.Fprintf(&b, "; %d:%d %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
	}
	return b.String()
}

// opGuard bounds an operation beyond its own timeout (a lost answer).
const opGuard = 30 * time.Second

// newClient builds the client of a mode.
func newClient(ctx context.Context, o *options, spec serverSpec, w *workload, mode string) (client, error) {
	switch mode {
	case modeRuntime, modePerSession:
		return newRuntimeClient(ctx, spec, w.dir, o.sessions, mode == modePerSession, o.settle, o.diagTimeout, o.debugLog)
	case modeDirect:
		return newDirectClient(spec, w.roots, o.settle, 0), nil
	case modeSleep:
		return newDirectClient(spec, w.roots, o.settle, o.sleep), nil
	}
	return nil, fmt.Errorf("loadharness: unknown mode %q", mode)
}

// driver runs one mode.
type driver struct {
	o   *options
	w   *workload
	c   client
	smp *sampler
	rec *recorder
}

// runMode measures one mode from a clean start to a complete shutdown.
func runMode(ctx context.Context, o *options, spec serverSpec, w *workload, mode string) (ModeResult, error) {
	res := ModeResult{Mode: mode, Sessions: o.sessions}
	if err := w.restore(); err != nil {
		return res, err
	}
	runtime.GC()
	debug.FreeOSMemory()
	res.RSSStartMB = selfRSSMB()
	cpu0 := cpuSeconds()
	smp := startSampler(o.sample)
	c, err := newClient(ctx, o, spec, w, mode)
	if err != nil {
		smp.stop()
		return res, err
	}
	d := &driver{o: o, w: w, c: c, smp: smp, rec: newRecorder()}
	d.phase(ctx, true)
	start := time.Now()
	d.phase(ctx, false)
	elapsed := time.Since(start)
	res.ClientGoroutinesIdle = idleGoroutines(smp)
	peak, servers, serverCPU := smp.stop()
	if b, ok := c.(interface {
		barriers(context.Context) messages.BarrierStats
	}); ok {
		st := b.barriers(ctx)
		res.Barriers = &st
	}
	d.shutdown(&res)
	res.CPUSeconds = cpuSeconds() - cpu0
	d.fill(&res, spec, mode, elapsed)
	res.RSSPeakMB, res.HeapPeakMB, res.ServerRSSPeakMB = peak.rssMB, peak.heapMB, peak.serverRSSMB
	res.GoroutinesPeak, res.ClientGoroutinesPeak, res.InFlightPeak = peak.goroutines, peak.clientGoroutines, peak.inflight
	res.Servers, res.ServerCPUSeconds = servers, serverCPU
	return res, nil
}

// shutdown closes the client, timing it, and checks no server outlived it.
func (d *driver) shutdown(res *ModeResult) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	if err := d.c.close(ctx); err != nil {
		d.rec.fail("shutdown", err)
	}
	res.ShutdownMs = msOf(time.Since(t0))
	if left := waitNoServers(10 * time.Second); left > 0 {
		d.rec.fail("servers_left_running", fmt.Errorf("%d server processes outlived shutdown", left))
	}
}

// fill computes the mode's figures from the records.
func (d *driver) fill(res *ModeResult, spec serverSpec, mode string, elapsed time.Duration) {
	r := d.rec
	res.Ops, res.Seconds = r.ok, elapsed.Seconds()
	res.OpsPerSec = float64(r.ok) / elapsed.Seconds()
	res.Errors, res.ErrorSamples = r.errs, r.samples
	res.EditsWithOtherFiles = r.withOthers
	var wait time.Duration
	switch {
	case mode == modeSleep:
		wait = d.o.sleep
	case spec.push:
		wait = d.o.settle
	}
	if wait > 0 {
		l := summarize(minus(r.edits, wait))
		res.EditOverhead = &l
	}
	res.Edit, res.Nav, res.Cold = summarize(r.edits), summarize(r.navs), summarize(r.cold)
}

// idleGoroutines is the client's goroutines once the load is over (all
// sessions still alive): the least of a few samples, so that goroutines
// still finishing their last answer are not counted.
func idleGoroutines(s *sampler) int {
	least := s.clientGoroutines()
	for range 10 {
		time.Sleep(20 * time.Millisecond)
		least = min(least, s.clientGoroutines())
	}
	return least
}

// phase runs every session at once: the cold first edit, or the warm ops.
func (d *driver) phase(ctx context.Context, cold bool) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for s := range d.o.sessions {
		wg.Add(1)
		d.smp.workers.Add(1)
		// One per session, joined below: it lives for the session's
		// operations, each bounded by its timeout.
		go func() {
			defer wg.Done()
			defer d.smp.workers.Add(-1)
			<-start
			log := &sessionLog{}
			files, exclusive := d.w.filesOf(s, d.o.sessions)
			if cold {
				d.edit(ctx, s, files[0], exclusive, log, true)
			} else {
				d.session(ctx, s, files, exclusive, log)
			}
			d.rec.merge(log)
		}()
	}
	close(start)
	wg.Wait()
}

// session runs one session's warm operations.
func (d *driver) session(ctx context.Context, s int, files []*file, exclusive bool, log *sessionLog) {
	step := d.o.navsPerEdit + 1
	navs := 0
	for j := range d.o.ops {
		f := files[(j/step+1)%len(files)]
		if j%step == 0 {
			d.edit(ctx, s, f, exclusive, log, false)
			continue
		}
		d.nav(ctx, s, f, navs, log)
		navs++
	}
}

// edit performs and records one edit.
func (d *driver) edit(ctx context.Context, s int, f *file, exclusive bool, log *sessionLog, cold bool) {
	n := d.w.nextEdit()
	text := f.text(n)
	prefix, timeout := "", d.o.diagTimeout
	if cold {
		prefix, timeout = "cold:", d.o.coldTimeout
	}
	if err := os.WriteFile(f.path, []byte(text), 0o644); err != nil {
		log.fail(prefix+"write", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+opGuard)
	defer cancel()
	d.smp.inflight.Add(1)
	t0 := time.Now()
	out, err := d.c.edit(ctx, s, f, text, timeout)
	took := time.Since(t0)
	d.smp.inflight.Add(-1)
	switch {
	case err != nil:
		log.fail(prefix+errorKind(err), err)
		return
	case cold:
		log.cold = append(log.cold, took)
	default:
		log.edits = append(log.edits, took)
		if out.otherFiles > 0 {
			log.withOthers++
		}
	}
	switch {
	case out.status != messages.StatusFresh:
		log.fail(prefix+"status_"+string(out.status), fmt.Errorf("edit %d of %s: status %s after %v", n, f.path, out.status, took))
	case exclusive && (out.errors > 0) != (n%2 == 1):
		log.fail(prefix+"wrong_diagnostics", fmt.Errorf("edit %d of %s: %d errors reported after %v: %s", n, f.path, out.errors, took, out.detail()))
	case !cold:
		log.ok++
	}
}

// nav performs and records one navigation.
func (d *driver) nav(ctx context.Context, s int, f *file, k int, log *sessionLog) {
	ctx, cancel := context.WithTimeout(ctx, opGuard)
	defer cancel()
	d.smp.inflight.Add(1)
	t0 := time.Now()
	err := d.c.nav(ctx, s, f, k)
	took := time.Since(t0)
	d.smp.inflight.Add(-1)
	if err != nil {
		log.fail(errorKind(err), err)
		return
	}
	log.navs = append(log.navs, took)
	log.ok++
}

// errorKind names an error for the errors-by-kind table.
func errorKind(err error) string {
	var rpc *messages.RPCError
	switch {
	case errors.Is(err, messages.ErrOverloaded):
		return "overloaded"
	case errors.Is(err, messages.ErrRequestTimeout):
		return "request_timeout"
	case errors.Is(err, messages.ErrServerBroken):
		return "server_broken"
	case errors.Is(err, messages.ErrServerCrashed):
		return "server_crashed"
	case errors.Is(err, messages.ErrStartupTimeout):
		return "startup_timeout"
	case errors.Is(err, messages.ErrShutdown):
		return "shutdown"
	case errors.Is(err, transport.ErrQueueFull):
		return "queue_full"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &rpc):
		return fmt.Sprintf("rpc_%d", rpc.Code)
	}
	return "other"
}

// sessionLog is one session's records, owned by its goroutine.
type sessionLog struct {
	edits, navs, cold []time.Duration
	ok, withOthers    int
	errs              map[string]int
	samples           map[string]string
}

func (l *sessionLog) fail(kind string, err error) {
	if l.errs == nil {
		l.errs, l.samples = map[string]int{}, map[string]string{}
	}
	l.errs[kind]++
	if _, ok := l.samples[kind]; !ok {
		l.samples[kind] = truncate(err.Error(), 1000)
	}
}

// recorder gathers the sessions' logs. Safe for concurrent use.
type recorder struct {
	mu sync.Mutex
	sessionLog
}

func newRecorder() *recorder {
	return &recorder{sessionLog: sessionLog{errs: map[string]int{}, samples: map[string]string{}}}
}

// merge adds a finished session's log.
func (r *recorder) merge(l *sessionLog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.edits = append(r.edits, l.edits...)
	r.navs = append(r.navs, l.navs...)
	r.cold = append(r.cold, l.cold...)
	r.ok, r.withOthers = r.ok+l.ok, r.withOthers+l.withOthers
	for k, n := range l.errs {
		r.errs[k] += n
		if _, ok := r.samples[k]; !ok {
			r.samples[k] = l.samples[k]
		}
	}
}

// fail records an error outside any session.
func (r *recorder) fail(kind string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessionLog.fail(kind, err)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
