package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

// Processes, seen from outside through /proc: every agentlsp child gets a
// marker in its environment (markerEnv=<run id>), which its language
// servers and their children inherit, so anything the run started is
// found even after it was re-parented. Each process is known by its pid
// and start time, so a reused pid is never mistaken for it.

// markerEnv names the environment variable that marks a run's processes.
const markerEnv = "MCPLOAD_RUN"

// procInfo is one process, from /proc/PID/stat.
type procInfo struct {
	pid, ppid, pgid int
	start           string // start time, clock ticks since boot
	state           string
	comm            string
}

func (p procInfo) id() string { return fmt.Sprintf("%d@%s", p.pid, p.start) }

// readProc reads /proc/PID/stat.
func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procInfo{}, false
	}
	open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || i < open {
		return procInfo{}, false
	}
	// After "pid (comm) ": state ppid pgrp ... starttime is field 22.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procInfo{}, false
	}
	return procInfo{pid: pid, ppid: ppid, pgid: pgid, start: f[19], state: f[0], comm: string(b[open+1 : i])}, true
}

// scanProcs reads every live (not zombie) process.
func scanProcs() map[int]procInfo {
	out := map[int]procInfo{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok && p.state != "Z" {
			out[pid] = p
		}
	}
	return out
}

// descendantsOf returns the processes below root in procs (root
// excluded), by parent links.
func descendantsOf(procs map[int]procInfo, root int) []procInfo {
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	var out []procInfo
	queue := append([]int(nil), children[root]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, procs[pid])
		queue = append(queue, children[pid]...)
	}
	return out
}

// hasMarker reports whether pid's environment holds the run's marker.
func hasMarker(pid int, marker string) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, []byte(marker+"\x00")) || bytes.Contains(env, []byte("\x00"+marker+"\x00"))
}

// kindOf names what a process below an agentlsp process is: gopls,
// pyright, or other:<command name>.
func kindOf(p procInfo) string {
	if p.comm == "gopls" {
		return "gopls"
	}
	cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
	if bytes.Contains(cmdline, []byte("pyright")) {
		return "pyright"
	}
	return "other:" + p.comm
}

// status reads VmRSS (in MB) and Threads from /proc/PID/status.
func status(pid int) (rssMB float64, threads int, ok bool) {
	v, ok := benchcmd.ProcStatus(strconv.Itoa(pid), "VmRSS", "Threads")
	return v["VmRSS"] / 1024, int(v["Threads"]), ok
}

// tracker remembers every process of the run it was shown, and the
// process groups they led; safe for concurrent use.
type tracker struct {
	marker string
	mu     sync.Mutex
	seen   map[string]tracked // by procInfo.id
}

type tracked struct {
	procInfo
	kind string
}

func newTracker(marker string) *tracker { return &tracker{marker: marker, seen: map[string]tracked{}} }

// add remembers p as a process of kind.
func (t *tracker) add(p procInfo, kind string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.seen[p.id()]; !ok {
		t.seen[p.id()] = tracked{p, kind}
	}
}

// counts returns how many processes of each kind were seen.
func (t *tracker) counts() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	for _, p := range t.seen {
		out[p.kind]++
	}
	return out
}

// leftovers returns the live processes of the run: a tracked process
// still alive (same pid and start time), a process in a group one of them
// led, or a process with the run's marker in its environment.
func (t *tracker) leftovers() []tracked {
	t.mu.Lock()
	seen, groups := map[string]tracked{}, map[int]bool{}
	for id, p := range t.seen {
		seen[id] = p
		if p.pgid == p.pid {
			groups[p.pid] = true
		}
	}
	t.mu.Unlock()
	var out []tracked
	for _, p := range scanProcs() {
		if p.pid == os.Getpid() {
			continue
		}
		if s, ok := seen[p.id()]; ok {
			out = append(out, s)
			continue
		}
		if groups[p.pgid] || hasMarker(p.pid, t.marker) {
			out = append(out, tracked{p, "untracked:" + p.comm})
		}
	}
	return out
}

// kill kills p and, if it leads one, its process group, unless p's pid now
// belongs to another process.
func kill(p procInfo) {
	now, ok := readProc(p.pid)
	if !ok || now.start != p.start {
		return
	}
	if now.pgid == p.pid {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
}
