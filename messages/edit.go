package messages

// Edit asks the router to change a document for a session, or (Current)
// to make sure its servers have the file's current text and diagnose it
// in the workspace as it is now, and to answer with the diagnostics that
// change caused: the router syncs the document and has the diagnostics
// actor answer with an EditResult (or answers it itself, with Err, when
// nothing could be sent). ID is the caller's own: the result carries it
// and CancelEdit names it (the router keys it by sender, so callers never
// share ids). With NotifyApplied the router first sends the requester an
// EditApplied as soon as the change went out.
type Edit struct {
	ID      uint64
	Session string
	Path    string // absolute, or relative to the workspace
	Text    string // the new text (not with Current)
	Current bool
	// Named are, with Current, the other files named in the same
	// diagnostics call (absolute, or relative to the workspace): changes
	// on disk to them are the caller's, as its own file's are, when the
	// errors of files it did not name are attributed.
	Named []string
	// Create lets the file be missing on disk: the document exists in
	// memory (an overlay) until it is saved (SyncSave writes it).
	Create        bool
	NotifyApplied bool
	WaitOptions
}

// EditApplied tells an Edit's requester that its change went out, at these
// versions, before the diagnostics are in (Edit.NotifyApplied).
type EditApplied struct {
	ID      uint64
	Path    string
	URI     string
	Servers []ServerVersion
}

// CancelEdit tells the router that the requester of the Edit with this ID
// gave up waiting. A change that went out stays applied; the wait is
// dropped, and a retry of the session's edit keeps the baseline of the
// abandoned one (its diagnostics are still new to the session). No reply.
type CancelEdit struct {
	ID uint64
}

// EditCancelled is CancelEdit as the router forwards it to the
// diagnostics actor. No reply.
type EditCancelled struct {
	EditID uint64
}
