package main

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

// The sampler measures a mode from outside the code under test: this
// process's RSS (VmRSS from /proc/self/status) and Go heap, its goroutines,
// and the language servers, found as this process's children (each is the
// leader of its own process group) with their process groups' RSS and CPU
// time, read from /proc.

// clockTicks is the kernel's USER_HZ, the unit of CPU times in /proc.
const clockTicks = 100

// sampler samples every interval in a goroutine it owns until stop.
type sampler struct {
	self     int
	interval time.Duration
	// workers and inflight are maintained by the driver: the harness's
	// own session goroutines, and operations in flight.
	workers  atomic.Int64
	inflight atomic.Int64
	baseline int // goroutines before the mode started

	mu   sync.Mutex
	peak peaks
	cpu  map[int]float64 // server pid -> latest CPU seconds of its group

	stopc chan struct{}
	done  chan struct{}
}

// peaks are the highest values seen.
type peaks struct {
	rssMB, heapMB, serverRSSMB   float64
	goroutines, clientGoroutines int
	inflight                     int
}

// startSampler takes a first sample and starts sampling.
func startSampler(interval time.Duration) *sampler {
	s := &sampler{
		self: os.Getpid(), interval: interval, cpu: make(map[int]float64),
		stopc: make(chan struct{}), done: make(chan struct{}),
	}
	s.baseline = runtime.NumGoroutine() + 1 // and the sampling goroutine
	s.sample()
	// Lives until stop; stop joins it.
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stopc:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

// stop takes a last sample, ends the sampling goroutine and returns the
// peaks, the number of server processes seen and their CPU seconds.
func (s *sampler) stop() (p peaks, servers int, serverCPU float64) {
	close(s.stopc)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cpu {
		serverCPU += c
	}
	return s.peak, len(s.cpu), serverCPU
}

// clientGoroutines is the goroutines of the code under test: all of them
// minus those that existed before the mode and the harness's workers.
func (s *sampler) clientGoroutines() int {
	return runtime.NumGoroutine() - s.baseline - int(s.workers.Load())
}

// sample takes one sample.
func (s *sampler) sample() {
	rss := selfRSSMB()
	heap := heapMB()
	g := runtime.NumGoroutine()
	cg := g - s.baseline - int(s.workers.Load())
	inflight := int(s.inflight.Load())
	groups := scanProcs(s.self)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &s.peak
	p.rssMB, p.heapMB = max(p.rssMB, rss), max(p.heapMB, heap)
	p.goroutines, p.clientGoroutines, p.inflight = max(p.goroutines, g), max(p.clientGoroutines, cg), max(p.inflight, inflight)
	var serverRSS float64
	for pid, grp := range groups {
		serverRSS += grp.rssMB
		s.cpu[pid] = max(s.cpu[pid], grp.cpu)
	}
	p.serverRSSMB = max(p.serverRSSMB, serverRSS)
}

// selfRSSMB is this process's resident set (VmRSS) in MiB.
func selfRSSMB() float64 { return statusKB("VmRSS") / 1024 }

// selfHWMMB is this process's peak resident set (VmHWM) in MiB.
func selfHWMMB() float64 { return statusKB("VmHWM") / 1024 }

func statusKB(field string) float64 {
	v, _ := benchcmd.ProcStatus("self", field)
	return v[field]
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapMB is the Go heap in use by objects, in MiB (cheap: no stop).
func heapMB() float64 {
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(heapSample[0].Value.Uint64()) / (1 << 20)
}

// group is one server's process group.
type group struct {
	rssMB float64
	cpu   float64 // seconds, live processes of the group
}

// procStat is what scanProcs reads from /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp int
	rssPages        int64
	cpuTicks        int64
}

// scanProcs returns the process groups led by children of parent (the
// language servers), keyed by leader pid.
func scanProcs(parent int) map[int]group {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var all []procStat
	leaders := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if !ok {
			continue
		}
		all = append(all, st)
		if st.ppid == parent && st.pgrp == st.pid {
			leaders[st.pid] = true
		}
	}
	page := float64(os.Getpagesize())
	out := make(map[int]group, len(leaders))
	for _, st := range all {
		if !leaders[st.pgrp] {
			continue
		}
		g := out[st.pgrp]
		g.rssMB += float64(st.rssPages) * page / (1 << 20)
		g.cpu += float64(st.cpuTicks) / clockTicks
		out[st.pgrp] = g
	}
	return out
}

// readStat parses /proc/PID/stat; zombies are skipped.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:]) // f[0] is field 3 of proc(5), the state
	if len(f) < 22 || f[0][0] == 'Z' {
		return procStat{}, false
	}
	num := func(k int) int64 { n, _ := strconv.ParseInt(string(f[k-3]), 10, 64); return n }
	return procStat{
		pid: pid, ppid: int(num(4)), pgrp: int(num(5)),
		cpuTicks: num(14) + num(15), rssPages: num(24),
	}, true
}

// cpuSeconds is this process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// waitNoServers waits until this process has no server child left, up to
// d, and returns how many are left.
func waitNoServers(d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		n := len(scanProcs(os.Getpid()))
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}
