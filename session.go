package agentlsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/messages"
)

// MaxFileSize bounds the files agentlsp reads and syncs.
const MaxFileSize = 16 << 20

// Session is one agent's view of the runtime. Its methods are safe for
// concurrent use and honour their context.
type Session struct {
	rt *Runtime
	id string

	mu     sync.Mutex
	opened map[string]bool // paths this session holds open
	sub    *subscription
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// EditOptions tune Edit and Diagnostics.
type EditOptions struct {
	// All reports every current diagnostic, not only those the edit added.
	All bool
	// MinSeverity filters (default: the runtime's, errors only).
	MinSeverity messages.Severity
	// Timeout bounds the wait (default: the servers' diagnostics timeout).
	Timeout time.Duration
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

// Edit replaces the text of a file on every server that serves it (the
// file must exist; agentlsp does not write it to disk) and waits for the
// diagnostics the edit caused: the edited file (at most 20) and up to 5
// other files where new errors appeared. res.Status says whether the answer
// is fresh. It blocks until the diagnostics are in, the timeout, or ctx.
func (s *Session) Edit(ctx context.Context, path, text string, opts ...EditOption) (*messages.EditResult, error) {
	o := EditOptions{MinSeverity: s.rt.cfg.MinSeverity}
	for _, f := range opts {
		f(&o)
	}
	return s.edit(ctx, path, text, o, 0)
}

func (s *Session) edit(ctx context.Context, path, text string, o EditOptions, maxOther int) (*messages.EditResult, error) {
	rt := s.rt
	abs, err := actors.CheckFile(rt.workspace, path)
	if err != nil {
		return nil, err
	}
	id := rt.nextID()
	// EditStarted goes out before the change, so the diagnostics actor
	// takes its baseline before any diagnostics of the new version.
	rt.sys.Root.Send(rt.diag, &messages.EditStarted{EditID: id, Session: s.id, URI: actors.PathToURI(abs)})
	synced, err := s.sync(ctx, abs, messages.SyncChange, text)
	if synced != nil {
		// The server actors keep the text even when their server is down.
		rt.remember(abs, text)
	}
	if err != nil {
		rt.sys.Root.Send(rt.diag, &messages.EditAborted{EditID: id})
		return nil, asGiven(err, path)
	}
	req := &messages.AwaitEdit{
		EditID: id, Session: s.id, URI: synced.URI, Servers: synced.Servers, All: o.All,
		MinSeverity: o.MinSeverity, Timeout: s.waitFor(synced.Servers, o.Timeout),
		Settle: rt.cfg.Settle, MaxOtherFiles: maxOther,
	}
	res, err := rt.ask(ctx, rt.diag, req, nil)
	if err != nil {
		return nil, err
	}
	out := res.(*messages.EditResult)
	for i := range out.Files {
		out.Files[i].Path = actors.URIToPath(out.Files[i].URI)
	}
	return out, nil
}

// waitFor is the diagnostics timeout of an edit: the option, the runtime's
// setting, or the longest of the servers' own.
func (s *Session) waitFor(servers []messages.ServerVersion, opt time.Duration) time.Duration {
	if opt > 0 {
		return opt
	}
	if s.rt.cfg.DiagnosticsTimeout > 0 {
		return s.rt.cfg.DiagnosticsTimeout
	}
	var d time.Duration
	for _, sv := range servers {
		if def, ok := s.rt.registry.Get(sv.ServerID); ok && def.DiagnosticsWait() > d {
			d = def.DiagnosticsWait()
		}
	}
	return d
}

// Diagnostics re-syncs the files from disk and waits for their fresh
// diagnostics, reporting everything current (not only what changed).
func (s *Session) Diagnostics(ctx context.Context, paths []string, opts ...EditOption) ([]messages.FileReport, error) {
	o := EditOptions{MinSeverity: s.rt.cfg.MinSeverity, All: true}
	for _, f := range opts {
		f(&o)
	}
	out := make([]messages.FileReport, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		// One goroutine per file, joined before returning.
		go func() {
			defer wg.Done()
			out[i], errs[i] = s.fileDiagnostics(ctx, p, o)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func (s *Session) fileDiagnostics(ctx context.Context, path string, o EditOptions) (messages.FileReport, error) {
	text, err := ReadText(s.rt.workspace, path)
	if err != nil {
		return messages.FileReport{Path: path}, err
	}
	res, err := s.edit(ctx, path, text, o, -1)
	if err != nil {
		return messages.FileReport{Path: path}, err
	}
	return res.Files[0], nil
}

// Open opens a file (its text read from disk) on its servers for this
// session. Opening is reference counted per session.
func (s *Session) Open(ctx context.Context, path string) error {
	abs, err := actors.CheckFile(s.rt.workspace, path)
	if err != nil {
		return err
	}
	text, err := ReadText(s.rt.workspace, abs)
	if err != nil {
		return err
	}
	if _, err = s.sync(ctx, abs, messages.SyncOpen, text); err == nil {
		s.rt.remember(abs, text)
	}
	return err
}

// Close drops this session's reference on a file; the servers close it
// when no session holds it open. The file need not exist any more.
func (s *Session) Close(ctx context.Context, path string) error {
	abs, err := actors.InWorkspace(s.rt.workspace, path)
	if err != nil {
		return err
	}
	_, err = s.sync(ctx, abs, messages.SyncClose, "")
	s.mu.Lock()
	delete(s.opened, abs)
	s.mu.Unlock()
	return err
}

// Save sends didSave for a file open in this session.
func (s *Session) Save(ctx context.Context, path string) error {
	abs, err := actors.InWorkspace(s.rt.workspace, path)
	if err != nil {
		return err
	}
	_, err = s.sync(ctx, abs, messages.SyncSave, "")
	return err
}

// sync sends one document action for this session and returns the
// servers' versions; a server's own error is returned when every server
// failed.
func (s *Session) sync(ctx context.Context, path string, action messages.SyncAction, text string) (*messages.FileSynced, error) {
	res, err := s.rt.ask(ctx, s.rt.router, &messages.SyncDocument{Session: s.id, Path: path, Action: action, Text: text}, nil)
	if err != nil {
		return nil, err
	}
	fs := res.(*messages.FileSynced)
	if fs.Err != nil {
		return nil, fs.Err
	}
	if action == messages.SyncOpen || action == messages.SyncChange {
		s.mu.Lock()
		if s.opened == nil {
			s.opened = make(map[string]bool)
		}
		s.opened[path] = true
		s.mu.Unlock()
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

// End closes every file the session opened and ends its subscription.
func (s *Session) End(ctx context.Context) error {
	s.mu.Lock()
	paths := make([]string, 0, len(s.opened))
	for p := range s.opened {
		paths = append(paths, p)
	}
	s.mu.Unlock()
	var errs []error
	for _, p := range paths {
		if err := s.Close(ctx, p); err != nil && !errors.Is(err, messages.ErrNotOpen) {
			errs = append(errs, err)
		}
	}
	s.stop()
	s.rt.mu.Lock()
	if s.rt.sessions[s.id] == s {
		delete(s.rt.sessions, s.id)
	}
	s.rt.mu.Unlock()
	return errors.Join(errs...)
}

// ReadText reads a file inside workspace as text: it must exist, be at
// most MaxFileSize, and be valid UTF-8 without NUL bytes.
func ReadText(workspace, path string) (string, error) {
	abs, err := actors.CheckFile(workspace, path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if fi.Size() > MaxFileSize {
		return "", fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrFileTooLarge, path, fi.Size(), MaxFileSize)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return "", fmt.Errorf("%w: %s", ErrNotText, path)
	}
	return string(b), nil
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
