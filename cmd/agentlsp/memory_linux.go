package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// residentBytes is the resident memory of a process (0 if unknown).
func residentBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// groupsResidentBytes is the resident memory of every process in the
// process groups of pids (a server runs in its own group, with its
// children).
func groupsResidentBytes(pids []int) int64 {
	if len(pids) == 0 {
		return 0
	}
	groups := map[int]bool{}
	for _, p := range pids {
		groups[p] = true
	}
	entries, _ := os.ReadDir("/proc")
	var total int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) > 2 {
			if pg, _ := strconv.Atoi(f[2]); groups[pg] {
				total += residentBytes(pid)
			}
		}
	}
	return total
}
