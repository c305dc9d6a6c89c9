package messages

// FileChangeType is the LSP FileChangeType.
type FileChangeType int

// The LSP file change types.
const (
	FileCreated FileChangeType = 1
	FileChanged FileChangeType = 2
	FileDeleted FileChangeType = 3
)

// String returns the change type's name.
func (t FileChangeType) String() string {
	switch t {
	case FileCreated:
		return "created"
	case FileChanged:
		return "changed"
	case FileDeleted:
		return "deleted"
	}
	return "unknown"
}

// FileChange is one change on disk.
type FileChange struct {
	Path string // absolute, clean
	URI  string
	Type FileChangeType
	// Dir says the path is a directory. Deleted (removed, or renamed or
	// moved away): everything below it is gone too, and no change below
	// it is reported one by one. Created (made, or moved in): what it
	// holds is reported one by one, as created.
	Dir bool
}

// FilesChanged is a debounced batch of changes on disk under a workspace,
// sent by the watcher. Barriers lists the barriers (WatchBarrier) this
// batch completes: every change made before them is in this batch or an
// earlier one. Partial says the watcher may have missed changes (a
// directory bound, a lost event, nothing watched, a file system that
// others change without events here): the receiver must look at the disk
// itself. Seq numbers a watcher's batches (1, 2, ...; across
// its restarts), for its Probe. Moved says a path was created, deleted or
// renamed since the previous batch, even when Changes reports it as
// changed (a link replaced by another): where a path leads may have
// changed. Held names the changed files left out because their writer has
// not closed them yet: a later batch names each (once it is closed, or its
// hold ran out). Fire and forget: no reply.
type FilesChanged struct {
	Workspace string
	Changes   []FileChange
	Barriers  []uint64
	Partial   bool
	Seq       uint64
	Moved     bool
	Held      []string
}

// WatchBarrier asks a watcher to send, as soon as it has read every change
// made before it was asked, a FilesChanged naming ID in Barriers (without
// waiting for its debounce window). No other reply.
type WatchBarrier struct {
	ID uint64
}

// GetWatcherStatus asks a watcher actor for its status; it answers at
// once with a *WatcherStatus.
type GetWatcherStatus struct{}

// WatcherStatus answers GetWatcherStatus.
type WatcherStatus struct {
	Workspace string
	Dirs      int   // directories watched
	Limited   bool  // the directory bound (or the kernel's inotify limit) was reached: some directories are not watched
	Dropped   int   // changes dropped because too many paths were pending
	Ready     bool  // the initial walk is done: changes anywhere in the watched tree are seen
	Err       error // why nothing is watched at all (nil when the watcher works)
	// Blind names the workspace's file system when changes others make
	// to it raise no events here ("nfs", "9p", ...): every batch is then
	// Partial, and the router compares the open files with the disk.
	Blind string
}
