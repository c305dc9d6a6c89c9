package agentlsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// maxParallelFiles bounds the files one Diagnostics call waits for at once.
const maxParallelFiles = 8

// Session is one agent's view of the runtime. Its methods are safe for
// concurrent use and honour their context. The documents it holds open
// are recorded by the router, which closes them when the session ends.
type Session struct {
	rt *Runtime
	id string

	mu    sync.Mutex
	sub   *subscription
	ended bool // End was called: what a call holds is released when it returns
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// EditOptions tune Edit and Diagnostics.
type EditOptions struct {
	// All reports every current diagnostic, not only those the edit added.
	All bool
	// MinSeverity filters (default: the runtime's, errors only).
	MinSeverity messages.Severity
	// Timeout bounds the wait (zero or negative: the default, the
	// runtime's DiagnosticsTimeout or the servers' diagnostics timeout).
	Timeout time.Duration
	// WorkingTimeout lets the wait go on past Timeout while a server says
	// it is at work on the file (WithWorkingTimeout; zero or negative:
	// not past Timeout).
	WorkingTimeout time.Duration
	// OtherFiles bounds the other files reported (default 5; negative:
	// none).
	OtherFiles int
	// Create lets Edit create a document that exists only in memory until
	// it is saved.
	Create bool
	// Named are more files the caller counts as named in a Diagnostics
	// call (WithNamed).
	Named []string
}

// EditOption sets an EditOptions field.
type EditOption func(*EditOptions)

// WithAll reports every current diagnostic of the file.
func WithAll() EditOption { return func(o *EditOptions) { o.All = true } }

// WithMinSeverity reports diagnostics of at least that severity.
func WithMinSeverity(s messages.Severity) EditOption {
	return func(o *EditOptions) { o.MinSeverity = s }
}

// WithTimeout bounds the wait for diagnostics.
func WithTimeout(d time.Duration) EditOption { return func(o *EditOptions) { o.Timeout = d } }

// WithWorkingTimeout lets the wait go on past its timeout while a server
// says it is at work on the file: starting, loading its workspace
// (work-done progress), or diagnosing since the change was sent (gopls).
// The answer then comes when that work ends, or d after the call began,
// whichever is first. `agentlsp check` uses it: gopls loading a large
// module for the first time diagnoses for longer than the 3 s timeout, and
// a timeout would say nothing about the file.
func WithWorkingTimeout(d time.Duration) EditOption {
	return func(o *EditOptions) { o.WorkingTimeout = d }
}

// WithOtherFiles bounds the other files an answer reports (negative: none).
func WithOtherFiles(n int) EditOption { return func(o *EditOptions) { o.OtherFiles = n } }

// WithCreate lets Edit create a file that does not exist on disk: the
// document lives in memory (its servers see it) until Save writes it.
func WithCreate() EditOption { return func(o *EditOptions) { o.Create = true } }

// WithNamed tells Diagnostics that the call is one of several that
// together name these files too (a caller that diagnoses them one by one,
// in parallel): changes to them are the caller's own, as the other files
// of one call are, and are not listed in other files' ChangedBy.
func WithNamed(paths ...string) EditOption {
	return func(o *EditOptions) { o.Named = append(o.Named, paths...) }
}

func (s *Session) options(opts []EditOption) EditOptions {
	o := EditOptions{MinSeverity: s.rt.cfg.MinSeverity}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Diagnostics makes sure the servers have each file's current text (the
// disk's, unless this runtime holds an edit newer than the disk), waits for
// diagnostics that describe it in the workspace as it is now, and reports
// everything current (not only what changed), one report per file in
// order; then up to 5 other files (Other set) whose diagnostics changed
// since this session's previous answer with errors it was not shown, each
// with the changes other than to the files named (and those of WithNamed)
// that could have made them (ChangedBy: the file's own change on disk,
// another session's edit; empty when only the named files' changes could
// have), those with none first; the other such files left out past the 5
// are named in the MoreFiles of the reports whose answers had them
// (dedup.MoreFiles gathers them). At most 8 files are waited for at once.
// A file no server serves, or whose servers are all broken (not
// installed, unable to start), has a report of status no_server or
// server_broken with the reason, on every call. Any other file that could
// not be checked (deleted, outside the workspace, ...) has a report of
// its Path alone (no Status), and the error joins those files' errors, in
// the order of files.
func (s *Session) Diagnostics(ctx context.Context, files []string, opts ...EditOption) ([]messages.FileReport, error) {
	o := s.options(append([]EditOption{WithAll()}, opts...))
	out := make([]messages.FileReport, len(files))
	others := make([][]messages.FileReport, len(files))
	errs := make([]error, len(files))
	if len(files) > 1 {
		s.OpenAll(ctx, files)
	}
	eachFile(len(files), func(i int) {
		out[i], others[i], errs[i] = s.fileDiagnostics(ctx, files[i], files, o)
	})
	return dedup.AppendOthers(out, others, o.OtherFiles), errors.Join(errs...)
}

// OpenAll opens files on their servers for this session (Open), at most
// maxParallelFiles at a time, and returns once each was opened or failed;
// the errors are left to the calls that follow, which meet them again.
// Diagnostics opens every file it is asked about before it waits for any:
// gopls diagnoses a file in every build its open files call for (a file
// for another system, `//go:build !unix`, adds a windows build of the
// module), so a file answered before the others were open could miss
// errors `gopls check` of the same files reports. A caller that asks
// about the files one call each (agentlsp check) opens them first too.
func (s *Session) OpenAll(ctx context.Context, files []string) {
	eachFile(len(files), func(i int) { _ = s.Open(ctx, files[i]) })
}

// eachFile runs do for 0..n-1, maxParallelFiles at a time, and returns
// when every call returned.
func eachFile(n int, do func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, maxParallelFiles) {
		// A worker lives until the files run out; joined before returning.
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	wg.Wait()
}

// fileDiagnostics asks for one file's diagnostics; named are all the
// files of the call, with those of WithNamed.
func (s *Session) fileDiagnostics(ctx context.Context, path string, named []string, o EditOptions) (messages.FileReport, []messages.FileReport, error) {
	var others []string
	if len(named) > 1 || len(o.Named) > 0 {
		seen := map[string]bool{path: true} // a check of many files names each in every call
		for _, list := range [][]string{named, o.Named} {
			for _, n := range list {
				if !seen[n] {
					seen[n] = true
					others = append(others, n)
				}
			}
		}
	}
	res, err := s.edit(ctx, &messages.Edit{Path: path, Current: true, Named: others}, o)
	if r, ok := s.unserved(path, err); ok {
		return r, nil, nil
	}
	if err != nil {
		return messages.FileReport{Path: path}, nil, err
	}
	return res.Files[0], res.Files[1:], nil
}

// unserved is the report of a file that no server can check, from the
// error of its call: no server serves it (no_server), or every server
// that does is broken (server_broken: not installed, unable to start),
// with the reason, each server's part named by the server. The router
// answers an edit whose servers are all broken with the diagnostics
// actor's server_broken report, as the wait of the call that learns of
// the break does; a file no server serves fails its sync, and so does an
// Open of a broken server's file: those errors become reports here, so a
// caller never has to tell them apart.
func (s *Session) unserved(path string, err error) (messages.FileReport, bool) {
	var status messages.Status
	switch {
	case err == nil:
		return messages.FileReport{}, false
	case errors.Is(err, messages.ErrNoServer):
		status = messages.StatusNoServer
	case errors.Is(err, messages.ErrServerBroken):
		status = messages.StatusServerBroken
	default:
		return messages.FileReport{}, false
	}
	abs := paths.Given(path) // a file:// URI names its path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.rt.workspace, abs)
	}
	uri := paths.URI(filepath.Clean(abs))
	return messages.FileReport{URI: uri, Path: s.rt.answerPath(path, uri), Status: status, Detail: reasons(err)}, true
}

// reasons is the detail of an unserved file: each server's error named by
// the server (as the diagnostics actor writes a server's part), others as
// they are.
func reasons(err error) string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	why := make([]string, 0, len(errs))
	for _, e := range errs {
		var se *messages.ServerError
		if errors.As(e, &se) {
			why = append(why, se.ServerID+": "+e.Error())
		} else {
			why = append(why, strings.TrimPrefix(e.Error(), "agentlsp: "))
		}
	}
	return strings.Join(why, "; ")
}

// Open opens a file (its text read from disk) on its servers for this
// session. Opening is reference counted per session.
func (s *Session) Open(ctx context.Context, path string) error {
	if _, err := paths.CheckFile(s.rt.workspace, path); err != nil {
		return err
	}
	_, err := s.sync(ctx, &messages.SyncDocument{Session: s.id, Path: path, Action: messages.SyncCurrent})
	return err
}

// Close drops this session's reference on a file; the servers close it
// when no session holds it open. The file need not exist any more.
func (s *Session) Close(ctx context.Context, path string) error {
	_, err := s.sync(ctx, &messages.SyncDocument{Session: s.id, Path: path, Action: messages.SyncClose})
	return err
}

// Save writes the text the servers have to disk when it differs from the
// disk's (an Edit, or a document created in memory), then sends didSave.
// When the disk has the text but no server could be told (all broken),
// the error says the text is on disk, and wraps the servers' errors.
func (s *Session) Save(ctx context.Context, path string) error {
	fs, err := s.sync(ctx, &messages.SyncDocument{Session: s.id, Path: path, Action: messages.SyncSave})
	if err != nil && fs != nil && fs.Err == nil {
		// The write went well (its failure is fs.Err): only didSave failed.
		return fmt.Errorf("agentlsp: %s: saved (the disk has the text), but no server was told: %w", path, err)
	}
	return err
}

// sync sends one document action and returns the servers' versions; a
// server's own error is returned when every server failed. Path errors
// name the path as the caller gave it.
func (s *Session) sync(ctx context.Context, m *messages.SyncDocument) (*messages.FileSynced, error) {
	defer s.released()
	given := m.Path
	if m.Session == "" {
		m.Session = s.id
	}
	res, err := s.rt.ask(ctx, s.rt.router, m, nil)
	if err != nil {
		return nil, err
	}
	fs := res.(*messages.FileSynced)
	if fs.Err != nil {
		return nil, asGiven(fs.Err, given)
	}
	var errs []error
	for _, sv := range fs.Servers {
		if sv.Err != nil {
			errs = append(errs, sv.Err)
		}
	}
	if len(errs) > 0 && len(errs) == len(fs.Servers) {
		return fs, errors.Join(errs...)
	}
	return fs, nil
}

// End closes every file the session opened, ends its subscription and
// drops what the diagnostics actor remembers of it (the diagnostics it
// was shown): a session of the same name started later is a new one.
// Calls of the session in flight meanwhile, or made after it, release
// what they opened when they return (an edit in flight is dropped with
// its document, unless another session holds it); an Edit made after it
// is refused with ErrSessionEnded, since its text would be dropped so.
func (s *Session) End(ctx context.Context) error {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	_, err := s.rt.ask(ctx, s.rt.router, &messages.EndSession{Session: s.id}, nil)
	s.stop()
	// Unsubscribe drops the session's memory; a session that never
	// subscribed has none sent by its subscriber, and a session of the
	// same name inherited what it had been shown.
	s.rt.sys.Root.Send(s.rt.diag, &messages.Unsubscribe{Session: s.id})
	s.rt.mu.Lock()
	if s.rt.sessions[s.id] == s {
		delete(s.rt.sessions, s.id)
	}
	s.rt.mu.Unlock()
	return err
}

// released ends the session again once a call of an ended session
// returned: a call in flight when End ran, or made after it, opened its
// files for the session after End's EndSession (the router records a
// session's documents as its messages arrive), and nothing closed them
// again: 16 files stayed open on gopls for good. The call's messages went
// to the router and the diagnostics actor before this, from this
// goroutine, so these come after them. Once a session of the same name
// was started again, what the call opened is that session's to release.
func (s *Session) released() {
	if !s.isEnded() || s.rt.closing() {
		return
	}
	s.rt.mu.Lock()
	next := s.rt.sessions[s.id]
	s.rt.mu.Unlock()
	if next != nil && next != s {
		return
	}
	s.rt.sys.Root.Send(s.rt.router, &messages.EndSession{Session: s.id})
	s.rt.sys.Root.Send(s.rt.diag, &messages.Unsubscribe{Session: s.id})
}

// isEnded reports whether End was called.
func (s *Session) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// asGiven makes a path error name the path as the caller gave it (the
// actors were sent the resolved absolute path).
func asGiven(err error, given string) error {
	var pe *messages.PathError
	if errors.As(err, &pe) {
		pe.Path = given
	}
	return err
}
