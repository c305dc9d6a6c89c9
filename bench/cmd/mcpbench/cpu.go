package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CallCPU is the CPU time the processes took per MCP call of one
// operation, in microseconds: agentlsp itself, its language servers
// (every process below it), and the raw client's gopls per raw call. CPU
// time is far steadier than latency on a shared machine, so it tells two
// builds apart where latency cannot.
type CallCPU struct {
	Agentlsp float64 `json:"agentlsp_us"`
	Servers  float64 `json:"agentlsp_servers_us"`
	RawGopls float64 `json:"raw_gopls_us"`
}

// cpuSample is the CPU time of a set of processes at one moment.
type cpuSample struct {
	agentlsp, servers, raw int64 // ns
}

// sampleCPU reads the CPU time of agentlsp (pid mcpPID), everything below
// it, and the raw client's gopls (rawPID).
func sampleCPU(mcpPID, rawPID int) cpuSample {
	s := cpuSample{agentlsp: cpuNs(mcpPID), raw: cpuNs(rawPID)}
	for _, p := range descendants(mcpPID) {
		if p.pid != mcpPID {
			s.servers += cpuNs(p.pid)
		}
	}
	return s
}

// perCall is the CPU per call between two samples, in µs; each client
// made calls calls.
func perCall(from, to cpuSample, calls int) *CallCPU {
	if calls == 0 || from.agentlsp == 0 || to.agentlsp == 0 {
		return nil
	}
	us := func(ns int64) float64 { return round2(float64(ns) / 1e3 / float64(calls)) }
	return &CallCPU{
		Agentlsp: us(to.agentlsp - from.agentlsp),
		Servers:  us(to.servers - from.servers),
		RawGopls: us(to.raw - from.raw),
	}
}

// cpuNs is a process's CPU time in nanoseconds: the sum over its threads
// of the time each ran (/proc/PID/task/TID/schedstat, exact, unlike the
// clock ticks of /proc/PID/stat). A thread that ended between two samples
// takes its time with it (Go's threads seldom end); 0 when unreadable.
func cpuNs(pid int) int64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			sum += v
		}
	}
	return sum
}
