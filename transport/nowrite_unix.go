//go:build unix

package transport

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// nowWriter writes to a non-blocking file descriptor (a pipe or a socket
// the runtime's poller holds) without waiting: what the descriptor takes
// at once.
type nowWriter struct{ raw syscall.RawConn }

// newNowWriter returns a nowWriter for out, or nil when out is not a
// non-blocking file descriptor (a write to it could block).
func newNowWriter(out io.Writer) *nowWriter {
	sc, ok := out.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if err := raw.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = err == nil && flags&unix.O_NONBLOCK != 0
	}); err != nil || !nonblocking {
		return nil
	}
	return &nowWriter{raw: raw}
}

// write writes as much of b as the descriptor takes now: n bytes. A full
// pipe is no error. The descriptor's write deadline, when it has passed,
// fails the write before anything is written (os.ErrDeadlineExceeded).
func (w *nowWriter) write(b []byte) (n int, err error) {
	rerr := w.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, e := syscall.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch {
			case e == syscall.EINTR:
			case e == syscall.EAGAIN:
				return true
			case e != nil:
				err = e
				return true
			case m <= 0:
				return true
			}
		}
		return true
	})
	if err == nil {
		err = rerr
	}
	return n, err
}
