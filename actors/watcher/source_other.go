//go:build !linux

package watcher

func newSource(bool) (source, error) { return newFsnotify() }
