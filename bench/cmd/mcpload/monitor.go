package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The monitor: memory and threads sampled from /proc, goroutines from the
// stats lines agentlsp writes on stderr (--stats), and the killer of
// --kill-every runs. Both scan the process tree below the agentlsp
// processes and show every process they see to the tracker.

// sample is one look at every process of the run.
type sample struct {
	min     float64               // minutes since the run began
	kinds   map[string]kindSample // by process kind
	clients map[int]kindSample    // agentlsp processes, by client
}

// kindSample sums the processes of one kind.
type kindSample struct {
	rss        float64 // MB
	threads    int
	goroutines int // agentlsp: from its last stats line
	n          int
}

// sampler samples every interval until stopped. Owned by run; its
// goroutine (started by start) ends when stop is closed or ctx is done,
// and done is closed then.
type sampler struct {
	clients []*client
	procs   *tracker
	began   time.Time
	mu      sync.Mutex
	samples []sample
	done    chan struct{}
}

// start takes a sample now and then every interval in a goroutine that
// lives until stop is closed or ctx is done (then closes s.done).
func (s *sampler) start(ctx context.Context, stop <-chan struct{}, interval time.Duration) {
	s.done = make(chan struct{})
	s.take()
	go every(ctx, stop, interval, s.done, s.take) // joined through s.done
}

// every calls f every interval until stop is closed or ctx is done, then
// closes done.
func every(ctx context.Context, stop <-chan struct{}, interval time.Duration, done chan<- struct{}, f func()) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// take records one sample.
func (s *sampler) take() {
	procs := scanProcs()
	smp := sample{min: time.Since(s.began).Minutes(), kinds: map[string]kindSample{}, clients: map[int]kindSample{}}
	for _, c := range s.clients {
		rss, threads, ok := status(c.pid)
		if !ok {
			continue
		}
		g, _ := lastGoroutines(c.stderr.Name())
		one := kindSample{rss: rss, threads: threads, goroutines: g, n: 1}
		smp.clients[c.id] = one
		smp.kinds["agentlsp"] = addKind(smp.kinds["agentlsp"], one)
		for _, p := range descendantsOf(procs, c.pid) {
			kind := "other:" + p.comm // a server's helper: go list, gopls telemetry, python3
			if p.ppid == c.pid {
				kind = kindOf(p)
			}
			s.procs.add(p, kind)
			if rss, threads, ok := status(p.pid); ok {
				if strings.HasPrefix(kind, "other:") {
					kind = "other"
				}
				smp.kinds[kind] = addKind(smp.kinds[kind], kindSample{rss: rss, threads: threads, n: 1})
			}
		}
	}
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
}

func addKind(a, b kindSample) kindSample {
	return kindSample{rss: a.rss + b.rss, threads: a.threads + b.threads, goroutines: a.goroutines + b.goroutines, n: a.n + b.n}
}

// readEnd returns the last n bytes of a file.
func readEnd(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	b := make([]byte, min(n, fi.Size()))
	k, _ := f.ReadAt(b, fi.Size()-int64(len(b)))
	return string(b[:k])
}

// lastGoroutines reads the goroutines of the last stats line agentlsp
// wrote in its stderr file (`msg="process stats" goroutines=N`).
func lastGoroutines(path string) (int, bool) {
	t := readEnd(path, 16<<10)
	i := strings.LastIndex(t, `msg="process stats" goroutines=`)
	if i < 0 {
		return 0, false
	}
	rest := t[i+len(`msg="process stats" goroutines=`):]
	if j := strings.IndexByte(rest, ' '); j >= 0 {
		rest = rest[:j]
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// MemoryRow is the memory of one kind of process after the warm-up.
type MemoryRow struct {
	Kind string `json:"kind"`
	// Processes is the most processes of the kind seen at once.
	Processes int `json:"processes"`
	Samples   int `json:"samples"`
	// RSS per process (the mean over the kind's processes), first and last
	// sample after the warm-up, and its least-squares slope.
	RSSFirstMB    float64 `json:"rss_first_mb"`
	RSSLastMB     float64 `json:"rss_last_mb"`
	SlopeMBPerMin float64 `json:"slope_mb_per_min"`
	// LastHalfSlope is the slope over the last half of those samples:
	// growth that levels off has a smaller one, a leak the same.
	LastHalfSlope float64 `json:"last_half_slope_mb_per_min"`
	// MaxProcessSlope is the steepest slope of one process (agentlsp
	// only: the other kinds' processes may be replaced by restarts).
	MaxProcessSlope float64 `json:"max_process_slope_mb_per_min,omitempty"`
	// Threads per process (from /proc), first, last and slope per minute.
	ThreadsFirst float64 `json:"threads_first"`
	ThreadsLast  float64 `json:"threads_last"`
	ThreadsSlope float64 `json:"threads_slope_per_min"`
	// Goroutines per process (agentlsp only: its --stats lines), first,
	// last and slope per minute; flat at maxGoroutineSlope or less.
	GoroutinesFirst float64 `json:"goroutines_first,omitempty"`
	GoroutinesLast  float64 `json:"goroutines_last,omitempty"`
	GoroutinesSlope float64 `json:"goroutines_slope_per_min,omitempty"`
	Flat            bool    `json:"flat"`
	// Note says why Flat is not judged: the processes were restarted.
	Note string `json:"note,omitempty"`
}

// memory summarizes the samples taken after warmup; flat is the largest
// slope, in MB per minute, still called flat; restarted names the kinds
// whose processes the killer replaced, whose slope says nothing.
func (s *sampler) memory(warmup time.Duration, flat float64, restarted []string) []MemoryRow {
	s.mu.Lock()
	samples := slices.Clone(s.samples)
	s.mu.Unlock()
	var after []sample
	for _, smp := range samples {
		if smp.min >= warmup.Minutes() {
			after = append(after, smp)
		}
	}
	kinds := map[string]bool{}
	for _, smp := range after {
		for k := range smp.kinds {
			kinds[k] = true
		}
	}
	var rows []MemoryRow
	for _, k := range sortedKeys(kinds) {
		if k == "other" { // short-lived helpers: go list, python3 -c
			continue
		}
		row := kindRow(k, after, flat)
		if slices.Contains(restarted, k) {
			row.Flat, row.Note = false, "restarted by the kills: not judged"
		}
		rows = append(rows, row)
	}
	return rows
}

// maxGoroutineSlope is the steepest goroutine count per process per
// minute still called flat: the calls in flight come and go, a leak of one
// per call would climb by hundreds.
const maxGoroutineSlope = 5

// kindRow summarizes one kind.
func kindRow(kind string, samples []sample, flat float64) MemoryRow {
	row := MemoryRow{Kind: kind}
	var xs, rss, threads, gor []float64
	for _, smp := range samples {
		k, ok := smp.kinds[kind]
		if !ok || k.n == 0 {
			continue
		}
		row.Processes = max(row.Processes, k.n)
		xs = append(xs, smp.min)
		rss = append(rss, k.rss/float64(k.n))
		threads = append(threads, float64(k.threads)/float64(k.n))
		gor = append(gor, float64(k.goroutines)/float64(k.n))
	}
	row.Samples = len(xs)
	if len(xs) == 0 {
		return row
	}
	row.RSSFirstMB, row.RSSLastMB = round2(rss[0]), round2(rss[len(rss)-1])
	row.ThreadsFirst, row.ThreadsLast = round2(threads[0]), round2(threads[len(threads)-1])
	row.SlopeMBPerMin, row.ThreadsSlope = round2(slope(xs, rss)), round2(slope(xs, threads))
	half := len(xs) / 2
	row.LastHalfSlope = round2(slope(xs[half:], rss[half:]))
	worst := math.Abs(row.SlopeMBPerMin)
	goroutinesFlat := true
	if kind == "agentlsp" {
		row.MaxProcessSlope = round2(maxClientSlope(samples))
		worst = math.Max(worst, math.Abs(row.MaxProcessSlope))
		row.GoroutinesFirst, row.GoroutinesLast = round2(gor[0]), round2(gor[len(gor)-1])
		row.GoroutinesSlope = round2(slope(xs, gor))
		goroutinesFlat = math.Abs(row.GoroutinesSlope) <= maxGoroutineSlope
	}
	row.Flat = len(xs) >= 3 && worst <= flat && goroutinesFlat
	return row
}

// maxClientSlope is the steepest RSS slope of one agentlsp process.
func maxClientSlope(samples []sample) float64 {
	series := map[int][2][]float64{}
	for _, smp := range samples {
		for id, k := range smp.clients {
			s := series[id]
			s[0], s[1] = append(s[0], smp.min), append(s[1], k.rss)
			series[id] = s
		}
	}
	worst := 0.0
	for _, s := range series {
		if sl := slope(s[0], s[1]); math.Abs(sl) > math.Abs(worst) {
			worst = sl
		}
	}
	return worst
}

// killer SIGKILLs a language server, a child of one of the agentlsp
// processes chosen at random, every interval. Its goroutine (started by
// start) ends when stop is closed or ctx is done, and closes done then.
type killer struct {
	clients []*client
	procs   *tracker
	kinds   []string // of server that may be killed
	rng     *rand.Rand
	began   time.Time
	mu      sync.Mutex
	kills   map[string]int // by kind; "none" when no server was running
	events  []killEvent
	done    chan struct{}
}

// killEvent is one kill.
type killEvent struct {
	at     time.Duration // since the run began
	client int
	kind   string
}

func (k *killer) start(ctx context.Context, stop <-chan struct{}, interval time.Duration) {
	k.done, k.kills = make(chan struct{}), map[string]int{}
	go every(ctx, stop, interval, k.done, k.killOne) // joined through k.done
}

// killOne kills one running language server.
func (k *killer) killOne() {
	procs := scanProcs()
	type candidate struct {
		tracked
		client int
	}
	var candidates []candidate
	for _, c := range k.clients {
		for _, p := range procs {
			if p.ppid != c.pid {
				continue
			}
			if kind := kindOf(p); slices.Contains(k.kinds, kind) {
				candidates = append(candidates, candidate{tracked{p, kind}, c.id})
			}
		}
	}
	kind, client := "none", -1
	if len(candidates) > 0 {
		p := candidates[k.rng.IntN(len(candidates))]
		k.procs.add(p.procInfo, p.kind)
		if now, ok := readProc(p.pid); ok && now.start == p.start && syscall.Kill(p.pid, syscall.SIGKILL) == nil {
			kind, client = p.kind, p.client
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kills[kind]++
	if client >= 0 {
		k.events = append(k.events, killEvent{at: time.Since(k.began), client: client, kind: kind})
	}
}

// lastKill returns how long before at the last kill of client's server of
// kind happened, or false when there was none.
func (k *killer) lastKill(client int, kind string, at time.Duration) (time.Duration, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := len(k.events) - 1; i >= 0; i-- {
		if e := k.events[i]; e.client == client && e.kind == kind && e.at <= at {
			return at - e.at, true
		}
	}
	return 0, false
}

// relation says when the server of r's language in r's client was last
// killed, relative to r's call, and groups that: killed during the call,
// in the 10 s before it, or not.
func (k *killer) relation(r result) (text, class string) {
	kind := "gopls"
	if strings.HasPrefix(r.key, langPy+"/") {
		kind = "pyright"
	}
	start := r.at - r.d
	d, ok := k.lastKill(r.client, kind, r.at)
	switch killed := r.at - d; {
	case !ok:
		return kind + " never killed before the answer", "server not killed before"
	case killed >= start:
		return fmt.Sprintf("%s killed during the call, %.0f ms after it began", kind, msOf(killed-start)), "server killed during the call"
	case start-killed <= 10*time.Second:
		return fmt.Sprintf("%s killed %.0f ms before the call began", kind, msOf(start-killed)), "server killed in the 10 s before the call"
	default:
		return fmt.Sprintf("%s killed %.0f ms before the call began", kind, msOf(start-killed)), "server not killed in the 10 s before the call"
	}
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// counts returns the kills by kind.
func (k *killer) counts() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]int{}
	for kind, n := range k.kills {
		out[kind] = n
	}
	return out
}
