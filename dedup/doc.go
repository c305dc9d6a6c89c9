// Package dedup holds the pure data structures behind agentlsp's diagnostic
// reporting: diagnostic keys, per-session delivered sets, baseline/delta,
// the severity filter and sort, the per-file and per-batch caps, and the
// renderers for the model format and the linter format.
//
// Everything here is pure and single-threaded: the package starts no
// goroutine, never blocks, reads no clock (time, where needed, is passed in)
// and does no I/O beyond the io.Writer handed to Render. Its types are not
// safe for concurrent use; each value is owned by one actor (the
// diagnostics actor) that calls it from its Receive. Functions never keep
// or modify the slices they are given unless their documentation says so
// (Sort sorts in place); the slices they return are new.
//
// Memory is bounded: a Delivered holds at most its file limit (MaxFiles by
// default) times MaxKeysPerFile keys, and a Batch keeps at most its
// per-file cap of diagnostics per file.
package dedup

// Defaults, from DESIGN.md section 4.
const (
	// PerFile is the default number of diagnostics a passive batch shows
	// per file.
	PerFile = 10
	// PerBatch is the default number of diagnostics a passive batch shows
	// across all its files.
	PerBatch = 30
	// EditedFile is the default number of diagnostics an edit result shows
	// for the edited file.
	EditedFile = 20
	// OtherFiles is the default number of other files (with new errors) an
	// edit result reports besides the edited one.
	OtherFiles = 5
	// MaxFiles is the default number of files a Delivered remembers.
	MaxFiles = 500
	// MaxKeysPerFile bounds the keys a Delivered remembers for one file.
	// Keys beyond it are not recorded, so those diagnostics may be reported
	// again; a file with that many distinct diagnostics is a flood that the
	// caps cut down anyway.
	MaxKeysPerFile = 10000
)
