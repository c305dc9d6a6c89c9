package paths

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// stampOf is StampOf by one stat(2) into a value on the stack.
func stampOf(path string) Stamp {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return Stamp{}
		}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return Stamp{}
	}
	return Stamp{Size: st.Size, ModTime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)),
		Changed: time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))}
}

// stampOfInfo is the stamp of a regular file's FileInfo.
func stampOfInfo(fi os.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), ModTime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Changed = time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return s
}
