package watcher

import "github.com/fsnotify/fsnotify"

// source is the stream of file events the watcher reads: its own inotify
// reader on Linux (which can tell that nothing is on its way), fsnotify
// elsewhere or when Config.Portable asks for it.
type source interface {
	Add(path string) error
	Remove(path string) error
	WatchList() []string
	Close() error
	// run hands batches of events (numbered from 1) and errors to deliver
	// until Close; deliver must not block.
	run(deliver func(seq uint64, evs []fsnotify.Event, err error))
	// queued reports the batches handed on so far and whether events may
	// be on their way; a source that cannot tell says they may.
	queued() (sent uint64, waiting bool)
	// closes reports whether the source reports the end of a write
	// (opCloseWrite): only then are files being written held back.
	closes() bool
	// drain hands on, as run does and in the same order, whatever the
	// source has queued now, without waiting; a source that cannot leaves
	// it to run.
	drain()
}

// opCloseWrite is a file opened for writing closed (inotify's
// IN_CLOSE_WRITE), in a bit fsnotify's operations leave free.
const opCloseWrite fsnotify.Op = 1 << 20

// fsnotifySource is fsnotify's watcher as a source.
type fsnotifySource struct{ *fsnotify.Watcher }

func newFsnotify() (source, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsnotifySource{w}, nil
}

func (fsnotifySource) queued() (uint64, bool) { return 0, true }
func (fsnotifySource) closes() bool           { return false }
func (fsnotifySource) drain()                 {}

// run forwards the watcher's events, in batches of what waits already, and
// its errors until it is closed.
func (s fsnotifySource) run(deliver func(uint64, []fsnotify.Event, error)) {
	var seq uint64
	errs := s.Errors
	for {
		select {
		case ev, ok := <-s.Events:
			if !ok {
				return
			}
			batch := []fsnotify.Event{ev}
			for open := true; open && len(batch) < maxReadBatch; { // take what waits already
				select {
				case ev, open = <-s.Events:
					if open {
						batch = append(batch, ev)
					}
				default:
					open = false
				}
			}
			seq++
			deliver(seq, batch, nil)
		case err, ok := <-errs:
			if !ok {
				errs = nil // Events closes right after
				continue
			}
			seq++
			deliver(seq, nil, err)
		}
	}
}
