//go:build linux

package watcher

import "testing"

// TestBlindFS: statfs names the file systems in blindTypes and no other:
// procfs and a missing directory are not blind.
func TestBlindFS(t *testing.T) {
	if got := blindTypes[0x6969]; got != "nfs" {
		t.Errorf("NFS's magic number names %q", got)
	}
	if got := blindTypes[0x01021997]; got != "9p" {
		t.Errorf("9p's magic number (WSL's Windows drives) names %q", got)
	}
	for _, dir := range []string{"/proc", "/no/such/dir"} {
		if got := blindFS(dir); got != "" {
			t.Errorf("blindFS(%s) = %q, want none", dir, got)
		}
	}
}
