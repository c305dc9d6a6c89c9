package agentlsp

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// appliedGrace bounds how long a cancelled edit still waits to learn the
// versions its change went out at.
const appliedGrace = 2 * time.Second

// EditError is the error of an Edit (or of one file of Diagnostics) that
// has no answer: Applied says whether the change went out (a call whose
// context was already done sends nothing; once sent, a change is applied
// and recorded whatever happens to the call), Versions at which versions
// when that was known before the call returned, and Err why the answer is
// missing (the context, the runtime's shutdown). It unwraps to Err.
type EditError struct {
	Path     string
	Applied  bool
	Versions []messages.ServerVersion
	Err      error
}

// Error says what happened to the change.
func (e *EditError) Error() string {
	if !e.Applied {
		return fmt.Sprintf("agentlsp: %s: not changed: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("agentlsp: %s: changed (versions %v), but no diagnostics: %v", e.Path, versions(e.Versions), e.Err)
}

// Unwrap returns the cause.
func (e *EditError) Unwrap() error { return e.Err }

func versions(svs []messages.ServerVersion) []string {
	out := make([]string, 0, len(svs))
	for _, sv := range svs {
		out = append(out, fmt.Sprintf("%s@%d", sv.ServerID, sv.Version))
	}
	return out
}

// Edit replaces the text of a file on every server that serves it
// (agentlsp does not write it to disk; Save does) and waits for the
// diagnostics the edit caused: the edited file (at most 20) and up to 5
// other files where it made new errors appear (res.Files[0].MoreFiles
// names, as URIs, those it left out past the 5); files that changed
// meanwhile because of other sessions' changes are in Meanwhile.
// res.Status says whether the answer is fresh; res.Servers the versions
// the change went out at. The file must exist, unless WithCreate. Text
// must be UTF-8 without NUL bytes (ErrNotText). A file whose servers are
// all broken (not installed, unable to start, crash budget spent) answers
// server_broken, each server's reason named by the server, on every
// call, with the edit applied: the runtime keeps the text, Save writes
// it, and the servers get it when they start again. It blocks until the
// diagnostics are in, the timeout, or ctx; an error that is not about the
// input is an *EditError saying whether the change went out. An Edit
// after End sends nothing (ErrSessionEnded).
func (s *Session) Edit(ctx context.Context, path, text string, opts ...EditOption) (*messages.EditResult, error) {
	if s.isEnded() {
		// The call would release the document as it returned (released):
		// an answer about a text nobody holds any more, lost unsaved.
		return nil, &EditError{Path: path, Err: ErrSessionEnded}
	}
	o := s.options(opts)
	return s.edit(ctx, &messages.Edit{Path: path, Text: text, Create: o.Create}, o)
}

// edit sends an Edit to the router and waits for its result.
func (s *Session) edit(ctx context.Context, m *messages.Edit, o EditOptions) (*messages.EditResult, error) {
	defer s.released()
	rt := s.rt
	if err := ctx.Err(); err != nil {
		return nil, &EditError{Path: m.Path, Err: err} // nothing sent
	}
	m.ID, m.Session, m.NotifyApplied = rt.nextID(), s.id, true
	m.WaitOptions = messages.WaitOptions{All: o.All || m.Current, MinSeverity: o.MinSeverity,
		Timeout: s.waitFor(m.Path, o.Timeout), WorkingTimeout: o.WorkingTimeout, Settle: rt.cfg.Settle,
		MaxOtherFiles: o.OtherFiles}
	res, err := rt.askEdit(ctx, m)
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, asGiven(res.Err, m.Path)
	}
	for _, fs := range [][]messages.FileReport{res.Files, res.Meanwhile} {
		for i := range fs {
			fs[i].Path = s.rt.answerPath(m.Path, fs[i].URI)
		}
	}
	return res, nil
}

// answerPath is the path of a file in an answer: relative to the
// workspace when the caller named its file relatively, else absolute.
func (rt *Runtime) answerPath(given, uri string) string {
	p := paths.FromURI(uri)
	if filepath.IsAbs(given) {
		return p
	}
	return paths.Rel(rt.workspace, p)
}

// waitFor is the diagnostics timeout of an edit: the option, the runtime's
// setting, or the longest of the file's servers' own.
func (s *Session) waitFor(path string, opt time.Duration) time.Duration {
	if opt > 0 {
		return opt
	}
	if s.rt.cfg.DiagnosticsTimeout > 0 {
		return s.rt.cfg.DiagnosticsTimeout
	}
	var d time.Duration
	for _, def := range s.rt.registry.Match(filepath.Join(s.rt.workspace, path)) {
		d = max(d, def.Effective().DiagnosticsTimeout)
	}
	return d
}

// askEdit sends an Edit and waits for its EditResult. When ctx ends
// first, the router is told (CancelEdit, from the same sender so it finds
// the edit) and the error says whether the change went out: it did once
// the router got it, at the versions of the EditApplied that came (or
// comes within a short grace).
func (rt *Runtime) askEdit(ctx context.Context, m *messages.Edit) (*messages.EditResult, error) {
	if rt.closing() {
		return nil, &EditError{Path: m.Path, Err: ErrShutdown}
	}
	proc := &replyProcess{ch: make(chan any, 2)}
	reg := rt.sys.ProcessRegistry
	self, _ := reg.Add(proc, "edit"+reg.NextId())
	defer reg.Remove(self)
	rt.sys.Root.RequestWithCustomSender(rt.router, m, self)
	var applied *messages.EditApplied
	for {
		select {
		case res := <-proc.ch:
			switch r := res.(type) {
			case *messages.EditApplied:
				applied = r
				continue
			case *messages.EditResult:
				return r, nil
			}
			return nil, rt.undelivered(m)
		case <-ctx.Done():
			rt.sys.Root.RequestWithCustomSender(rt.router, &messages.CancelEdit{ID: m.ID}, self)
			return nil, &EditError{Path: m.Path, Applied: true, Versions: rt.appliedVersions(applied, proc), Err: rt.ctxErr(ctx)}
		case <-rt.done:
			return nil, &EditError{Path: m.Path, Applied: applied != nil, Err: ErrShutdown}
		}
	}
}

// appliedVersions returns the versions of a cancelled edit: known, or
// awaited for a short grace.
func (rt *Runtime) appliedVersions(applied *messages.EditApplied, proc *replyProcess) []messages.ServerVersion {
	timer := time.NewTimer(appliedGrace)
	defer timer.Stop()
	for applied == nil {
		select {
		case res := <-proc.ch:
			switch r := res.(type) {
			case *messages.EditApplied:
				applied = r
			case *messages.EditResult:
				return r.Servers
			default:
				return nil
			}
		case <-timer.C:
			return nil
		case <-rt.done:
			return nil
		}
	}
	return applied.Servers
}

// undelivered is the error of a message that found no actor.
func (rt *Runtime) undelivered(msg any) error {
	if rt.closing() {
		return ErrShutdown
	}
	return fmt.Errorf("agentlsp: %T was not delivered: the actor is gone", msg)
}
