//go:build !linux

package watcher

// blindFS names the file system holding dir when the watcher cannot see
// changes others make to it; only Linux tells (see blind_linux.go).
func blindFS(string) string { return "" }
