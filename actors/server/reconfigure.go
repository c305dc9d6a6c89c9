package server

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// A change on disk to one of the files that configure the server (its
// definition's ConfigFiles: pyright's pyproject.toml and
// pyrightconfig.json) restarts it: a planned restart, not a crash. The
// new process reads its configuration as it is on disk then, every open
// document is re-opened, and no diagnostics of the process before count
// for a document after it.
//
// pyright 1.1.414 reloads the one configuration file it read (the root's
// pyrightconfig.json, else its pyproject.toml) 100 ms after it hears of
// its change, in a timer of its own, and then asks for pulls again; a
// pull asked meanwhile (an agent's diagnostics call right after its
// write) was answered with the old settings, and counted as fresh. A
// pyrightconfig.json created beside a pyproject.toml it never takes until
// it restarts: every answer said fresh with the old settings.

// configChanged returns the first change in m of one of the server's
// configuration files, if any.
func (a *serverActor) configChanged(m *messages.FilesChanged) (string, bool) {
	if len(a.cfg.Server.ConfigFiles) == 0 {
		return "", false
	}
	for _, c := range m.Changes {
		rel, err := filepath.Rel(a.cfg.Root, c.Path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, pattern := range a.cfg.Server.ConfigFiles {
			if ok, _ := path.Match(pattern, rel); ok {
				return c.Path, true
			}
			// A directory deleted, renamed or moved away takes what was
			// below it, unreported one by one.
			if c.Dir && c.Type == messages.FileDeleted && strings.HasPrefix(pattern, rel+"/") {
				return c.Path, true
			}
		}
	}
	return "", false
}

// reconfigure restarts the server because its configuration file changed
// on disk. Every document's next touch is a new version (NoteChange), so
// that what the old process said of a document never answers for it
// again. A process that runs or starts is shut down gracefully in the
// background while the next one starts; the requests it had in flight
// are sent again to the next one, as after a crash, but the restart
// spends no crash budget and counts as no crash. A server not running
// (its restart after a crash pending, broken, stopped) reads its
// configuration when it next starts.
func (a *serverActor) reconfigure(ctx actor.Context, file string) {
	a.st.docs.NoteChange()
	if a.inc == nil {
		return
	}
	a.st.reconfigured++
	a.cfg.Logger.Info("language server configuration changed; restarting it", "server", a.cfg.Server.ID,
		"root", a.cfg.Root, "file", file)
	a.inc.shutdown(a.cfg.Reaper, a.lim.ShutdownTimeout)
	a.inc = nil
	a.osPID = 0
	a.holdForRestart(ctx, a.serverError(messages.ErrServerCrashed, errReconfigured, nil), false)
	a.start(ctx)
}
