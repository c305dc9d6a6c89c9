//go:build !linux

package paths

func stampOf(path string) Stamp { return osStampOf(path) }
