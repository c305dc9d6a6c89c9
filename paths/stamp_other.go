//go:build !linux

package paths

import "os"

func stampOf(path string) Stamp { return osStampOf(path) }

// stampOfInfo is the stamp of a regular file's FileInfo; the change time
// is not read here.
func stampOfInfo(fi os.FileInfo) Stamp { return Stamp{Size: fi.Size(), ModTime: fi.ModTime()} }
