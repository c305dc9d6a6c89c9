package paths

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openRead opens a file to read without blocking on a named pipe (nobody
// writing to one would hold the open for ever); reading a regular file is
// unaffected.
func openRead(abs string) (*os.File, error) {
	return os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// takeLease asks for a read lease on f (fcntl F_SETLEASE, F_RDLCK): the
// kernel grants one only while no process has the file open for writing,
// and while it is held a writer's open waits until it is given up. A
// writer's truncation comes after its open, and its inotify event after
// the truncation: so a file read under a lease was read whole, never
// between a writer's truncation and its write, which the watcher may not
// have heard of yet. LeaseNone where leases are off or the file is
// another user's.
func takeLease(f *os.File) Lease {
	rc, err := f.SyscallConn()
	if err != nil {
		return LeaseNone
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) { _, lerr = unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_RDLCK) }); err != nil {
		return LeaseNone
	}
	switch {
	case lerr == nil:
		return LeaseHeld
	case errors.Is(lerr, unix.EAGAIN):
		return LeaseBusy
	}
	return LeaseNone // EACCES: not the owner; EINVAL: leases off, or a file system without them
}

// dropLease gives up the lease taken on f, so that a writer waiting to
// open it goes on now.
func dropLease(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_UNLCK) })
	}
}
