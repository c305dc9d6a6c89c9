package router

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Edits. The router carries an Edit out as one step of the pipeline: it
// tells the diagnostics actor the edit starts (its baseline is taken
// before the change can produce any diagnostics), syncs the document, and
// hands the wait to the diagnostics actor, which answers the requester
// directly; when nothing went out, it tells the diagnostics actor so and
// answers with the error. Edit ids are the router's own: callers' ids are
// kept per sender, for CancelEdit.

// maxEditsKept bounds the caller ids remembered for CancelEdit.
const maxEditsKept = 10000

// callerKey names one caller's edit: its sender and its own id.
type callerKey struct {
	sender string
	id     uint64
}

func keyOf(sender *actor.PID, id uint64) callerKey {
	if sender == nil {
		return callerKey{id: id}
	}
	return callerKey{sender: sender.Address + "/" + sender.Id, id: id} // not String: it formats protobuf text
}

func (r *routerActor) onEdit(ctx actor.Context, sender *actor.PID, m *messages.Edit) {
	fail := func(err error) { r.reply(ctx, sender, &messages.EditResult{ID: m.ID, Err: err}) }
	abs, err := r.editPath(m)
	if err != nil {
		fail(err)
		return
	}
	r.nextEdit++
	eid := r.nextEdit
	if len(r.edits) >= maxEditsKept {
		clear(r.edits)
	}
	r.edits[keyOf(sender, m.ID)] = eid
	ctx.Send(r.cfg.Diagnostics, &messages.EditStarted{EditID: eid, Session: m.Session, URI: paths.URI(abs), Current: m.Current})
	sync := &messages.SyncDocument{Session: m.Session, Path: m.Path, Action: messages.SyncChange, Text: m.Text, Fresh: m.Current, Create: m.Create}
	if m.Current {
		sync.Action = messages.SyncCurrent
	}
	r.sync(ctx, sync, func(fs *messages.FileSynced) {
		if err := syncError(fs); err != nil && !brokenOnly(fs) {
			ctx.Send(r.cfg.Diagnostics, &messages.EditAborted{EditID: eid})
			fail(err)
			return
		}
		if m.NotifyApplied {
			r.reply(ctx, sender, &messages.EditApplied{ID: m.ID, Path: fs.Path, URI: fs.URI, Servers: fs.Servers})
		}
		await := &messages.AwaitEdit{EditID: eid, CallerID: m.ID, Session: m.Session, URI: fs.URI,
			Servers: fs.Servers, Current: m.Current, Named: r.namedURIs(m), WaitOptions: m.WaitOptions}
		if sender == nil {
			ctx.Send(r.cfg.Diagnostics, await)
			return
		}
		ctx.RequestWithCustomSender(r.cfg.Diagnostics, await, sender)
	})
}

// editPath checks an edit's file (it must exist unless the edit creates
// it) and text: no larger than a file agentlsp reads (a 17 MiB text went
// to gopls, and once saved, the file was refused as too large).
func (r *routerActor) editPath(m *messages.Edit) (string, error) {
	if !m.Current {
		if len(m.Text) > paths.MaxFileSize {
			return "", fmt.Errorf("%w: the text for %s is %d bytes, the limit is %d", messages.ErrFileTooLarge, m.Path, len(m.Text), paths.MaxFileSize)
		}
		if err := paths.CheckText(m.Text); err != nil {
			return "", err
		}
	}
	return r.checkFile(m.Path, m.Create && !m.Current)
}

// namedURIs are the URIs of the other files of a diagnostics call
// (Edit.Named); a path outside the workspace is left out (its own call
// says why).
func (r *routerActor) namedURIs(m *messages.Edit) []string {
	if !m.Current || len(m.Named) == 0 {
		return nil
	}
	out := make([]string, 0, len(m.Named))
	for _, p := range m.Named {
		if abs, ok := r.openAt(p); ok {
			out = append(out, paths.URI(abs))
		} else if abs, err := r.inWorkspace(p); err == nil {
			out = append(out, paths.URI(abs))
		}
	}
	return out
}

// openAt returns the path of the open document p names as it is, without
// resolving symlinks: every call of a check names all its files, which
// are open, and resolving each name of each call (without a watcher, that
// caches them) took a check of 478 files 228,000 walks of their paths in
// this actor, two of its 16 seconds.
func (r *routerActor) openAt(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.cfg.Workspace, p)
	}
	p = filepath.Clean(p)
	_, ok := r.docs[p]
	return p, ok
}

// syncError is why a sync sent nothing: a path error, or every server
// failed.
func syncError(fs *messages.FileSynced) error {
	if fs.Err != nil {
		return fs.Err
	}
	var errs []error
	for _, sv := range fs.Servers {
		if sv.Err != nil {
			errs = append(errs, sv.Err)
		}
	}
	if len(errs) > 0 && len(errs) == len(fs.Servers) {
		return errors.Join(errs...)
	}
	return nil
}

// brokenOnly reports whether a sync that every server failed failed only
// because its servers are broken (crash budget spent, binary missing):
// the document took the text, and each broken server actor keeps it for
// its next start, so the edit is applied, and its answer is the
// diagnostics actor's server_broken report, which the first edit to meet
// the broken server gets from its wait. Before, every later edit failed
// here with the server's error instead: one answer, then another.
func brokenOnly(fs *messages.FileSynced) bool {
	if fs.Err != nil || len(fs.Servers) == 0 {
		return false
	}
	for _, sv := range fs.Servers {
		if !errors.Is(sv.Err, messages.ErrServerBroken) {
			return false
		}
	}
	return true
}

// onCancelEdit forwards a requester's cancellation to the diagnostics
// actor.
func (r *routerActor) onCancelEdit(ctx actor.Context, sender *actor.PID, m *messages.CancelEdit) {
	k := keyOf(sender, m.ID)
	if eid, ok := r.edits[k]; ok {
		delete(r.edits, k)
		ctx.Send(r.cfg.Diagnostics, &messages.EditCancelled{EditID: eid})
	}
}
