//go:build linux

package watcher

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// inotify is the watcher's event source on Linux: one inotify instance,
// read by one goroutine. It gives the same events as fsnotify's inotify
// backend, and it can also tell that no event is on its way (queued): a
// read holds mu from the moment it takes events from the kernel until it
// has handed them on, so the kernel's queue seen empty under mu (FIONREAD)
// means every event queued before was handed on, in a batch numbered at
// most sent. fsnotify hands events on from a goroutine of its own, which
// leaves no such moment to observe.
type inotify struct {
	file *os.File
	rc   syscall.RawConn

	mu   sync.Mutex // held by a read while it hands its events on
	sent uint64     // batches handed on (under mu)
	buf  []byte     // the read buffer (under mu)
	// deliver is run's, for drain too (under mu).
	deliver func(seq uint64, evs []fsnotify.Event, err error)

	wmu    sync.Mutex
	byWd   map[int]string // watched path by watch descriptor
	byPath map[string]int
}

// watchMask is what fsnotify asks the kernel for on Add.
const watchMask = unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_CREATE | unix.IN_ATTRIB |
	unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_MOVE_SELF | unix.IN_DELETE | unix.IN_DELETE_SELF

func newSource(portable bool) (source, error) {
	if portable {
		return newFsnotify()
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &inotify{file: f, rc: rc, byWd: map[int]string{}, byPath: map[string]int{}}, nil
}

func (n *inotify) Add(path string) error {
	var wd int
	var err error
	if cerr := n.rc.Control(func(fd uintptr) { wd, err = unix.InotifyAddWatch(int(fd), path, watchMask) }); cerr != nil {
		return fsnotify.ErrClosed
	}
	if err != nil {
		return fmt.Errorf("inotify_add_watch %s: %w", path, err)
	}
	n.wmu.Lock()
	defer n.wmu.Unlock()
	if old, ok := n.byWd[wd]; ok && old != path {
		delete(n.byPath, old) // the same directory under a new name
	}
	n.byWd[wd], n.byPath[path] = path, wd
	return nil
}

func (n *inotify) Remove(path string) error {
	n.wmu.Lock()
	wd, ok := n.byPath[path]
	if ok {
		delete(n.byPath, path)
		delete(n.byWd, wd)
	}
	n.wmu.Unlock()
	if !ok {
		return fsnotify.ErrNonExistentWatch
	}
	var err error
	if cerr := n.rc.Control(func(fd uintptr) { _, err = unix.InotifyRmWatch(int(fd), uint32(wd)) }); cerr != nil {
		return fsnotify.ErrClosed
	}
	return err
}

func (n *inotify) WatchList() []string {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	out := make([]string, 0, len(n.byPath))
	for p := range n.byPath {
		out = append(out, p)
	}
	return out
}

func (n *inotify) Close() error { return n.file.Close() }

// closes: inotify reports IN_CLOSE_WRITE.
func (n *inotify) closes() bool { return true }

// queued reports the batches handed on so far and whether events wait in
// the kernel's queue, both at one moment.
func (n *inotify) queued() (sent uint64, waiting bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var q int
	var err error
	cerr := n.rc.Control(func(fd uintptr) { q, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }) // FIONREAD
	return n.sent, cerr != nil || err != nil || q > 0
}

// run reads events until Close, handing each read's events to deliver
// (with the batch's number) under mu.
func (n *inotify) run(deliver func(seq uint64, evs []fsnotify.Event, err error)) {
	n.mu.Lock()
	n.buf, n.deliver = make([]byte, 64<<10), deliver
	n.mu.Unlock()
	for {
		err := n.rc.Read(func(fd uintptr) bool {
			n.mu.Lock()
			defer n.mu.Unlock()
			return n.readOnce(fd)
		})
		if err != nil {
			return // closed
		}
	}
}

// drain reads what the kernel has queued now, without waiting for the
// runtime's poller to notice it (under load, that took 0.7 ms on average),
// and hands it on as run does: a barrier's marker was just written, so its
// event and every one before it are in the queue.
func (n *inotify) drain() {
	_ = n.rc.Control(func(fd uintptr) { // an error: closed, nothing to read
		n.mu.Lock()
		defer n.mu.Unlock()
		for i := 0; i < maxDrainReads && n.deliver != nil && n.readOnce(fd); i++ {
		}
	})
}

// maxDrainReads bounds the reads of one drain (64 KiB each); what is
// left is run's.
const maxDrainReads = 16

// readOnce reads once from the non-blocking descriptor and hands the
// events on; false when nothing was queued. Under mu.
func (n *inotify) readOnce(fd uintptr) bool {
	k, err := unix.Read(int(fd), n.buf)
	switch {
	case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
		return false // wait until readable
	case err != nil:
		n.sent++
		n.deliver(n.sent, nil, err)
	case k > 0:
		evs, lost := n.parse(int(fd), n.buf[:k])
		if len(evs) > 0 || lost != nil {
			n.sent++
			n.deliver(n.sent, evs, lost)
		}
	}
	return true
}

// parse turns one read's raw events into fsnotify's, as its inotify
// backend does: named by the watched path (and the entry), the watch of a
// deleted or moved directory dropped (a deleted one's event left to its
// watched parent), a queue overflow reported as fsnotify.ErrEventOverflow.
func (n *inotify) parse(fd int, b []byte) (evs []fsnotify.Event, lost error) {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	for off := 0; off+unix.SizeofInotifyEvent <= len(b); {
		raw := (*unix.InotifyEvent)(unsafe.Pointer(&b[off]))
		nameAt := off + unix.SizeofInotifyEvent
		off = nameAt + int(raw.Len)
		if raw.Mask&unix.IN_Q_OVERFLOW != 0 {
			lost = fsnotify.ErrEventOverflow
			continue
		}
		path, ok := n.byWd[int(raw.Wd)]
		if !ok {
			continue // removed meanwhile
		}
		if raw.Mask&(unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 {
			delete(n.byWd, int(raw.Wd))
			if n.byPath[path] == int(raw.Wd) {
				delete(n.byPath, path)
			}
			continue
		}
		if raw.Len > 0 && off <= len(b) {
			path += "/" + strings.TrimRight(string(b[nameAt:off]), "\x00")
		}
		if raw.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
			delete(n.byWd, int(raw.Wd))
			delete(n.byPath, path)
			if raw.Mask&unix.IN_MOVE_SELF != 0 {
				_, _ = unix.InotifyRmWatch(fd, uint32(raw.Wd)) // it would watch the new name as the old
			} else if _, parent := n.byPath[dirOf(path)]; parent {
				continue // the parent reports the entry itself
			}
		}
		evs = append(evs, fsnotify.Event{Name: path, Op: opOf(raw.Mask)})
	}
	return evs, lost
}

// opOf maps an inotify mask to fsnotify's operations.
func opOf(mask uint32) fsnotify.Op {
	var op fsnotify.Op
	if mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		op |= fsnotify.Create
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_DELETE) != 0 {
		op |= fsnotify.Remove
	}
	if mask&unix.IN_MODIFY != 0 {
		op |= fsnotify.Write
	}
	if mask&(unix.IN_MOVE_SELF|unix.IN_MOVED_FROM) != 0 {
		op |= fsnotify.Rename
	}
	if mask&unix.IN_ATTRIB != 0 {
		op |= fsnotify.Chmod
	}
	if mask&unix.IN_CLOSE_WRITE != 0 {
		op |= opCloseWrite
	}
	return op
}

// dirOf is filepath.Dir for the clean absolute paths watched.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "/"
}
