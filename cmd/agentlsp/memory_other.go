//go:build !linux

package main

// residentBytes is unknown on this system.
func residentBytes(int) int64 { return 0 }

// groupsResidentBytes is unknown on this system.
func groupsResidentBytes([]int) int64 { return 0 }
