package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

// Child processes: every command this tool starts leads its own process
// group, writes its stderr to a file in the run's temporary directory (no
// copying goroutine, and a grandchild that keeps the descriptor open
// cannot block Wait), and is cleaned up with its descendants: a snapshot
// of the process tree taken before the child is stopped, so that
// grandchildren re-parented when it exits (agentlsp's gopls, gopls's
// telemetry helper) are still found and killed.

// command returns a command in its own process group with stderr in a new
// file under dir named after name.
func command(dir, name, path string, args ...string) (*exec.Cmd, *os.File, error) {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	f, err := os.CreateTemp(dir, name+"-*.stderr")
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = f
	return cmd, f, nil
}

// tail returns the last n bytes of the file at path, for error messages.
func tail(f *os.File, n int) string {
	if f == nil {
		return ""
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// proc identifies a live process: its pid and start time (clock ticks
// since boot), so a pid reused later is never mistaken for it.
type proc struct {
	pid   int
	start string
}

// descendants returns pid and every process below it, by parent links.
func descendants(pid int) []proc {
	children := map[int][]int{}
	starts := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, start, ok := statOf(p)
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], p)
		starts[p] = start
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if s, ok := starts[p]; ok {
			out = append(out, proc{pid: p, start: s})
		}
		queue = append(queue, children[p]...)
	}
	return out
}

// statOf reads a process's parent pid and start time from /proc.
func statOf(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	// After "pid (comm) ": state ppid pgrp ... starttime is field 22.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

// alive reports whether p is still the same running (not zombie) process.
func (p proc) alive() bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) >= 20 && f[0] != "Z" && f[19] == p.start
}

// killAll kills every process of the snapshot that is still alive, and
// the process group each one leads.
func killAll(ps []proc) {
	for _, p := range ps {
		if !p.alive() {
			continue
		}
		if pgid, err := syscall.Getpgid(p.pid); err == nil && pgid == p.pid {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// waitExit waits up to d for cmd's process to exit (its Wait is running in
// done), then kills its tree and waits again. The tree is snapshotted
// first, so grandchildren are found even after cmd exits.
func waitExit(cmd *exec.Cmd, done <-chan error, d time.Duration) error {
	tree := descendants(cmd.Process.Pid)
	defer killAll(tree[min(1, len(tree)):]) // leftovers below cmd
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	killAll(tree)
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%w: %s (pid %d)", ErrUnresponsive, cmd.Path, cmd.Process.Pid)
	}
}

// peaks reads the peak resident memory of raw gopls (and anything below
// it) and of agentlsp and of the processes below it.
func peaks(rawPID, mcpPID int) *MemoryResult {
	m := &MemoryResult{RawGopls: peakOf(descendants(rawPID))}
	tree := descendants(mcpPID)
	m.Agentlsp = peakOf(tree[:min(1, len(tree))])
	m.AgentlspLSP = peakOf(tree[min(1, len(tree)):])
	return m
}

// peakOf sums the processes' VmHWM, in MiB.
func peakOf(ps []proc) float64 {
	var kib float64
	for _, p := range ps {
		v, _ := benchcmd.ProcStatus(strconv.Itoa(p.pid), "VmHWM")
		kib += v["VmHWM"]
	}
	return round2(kib / 1024)
}
