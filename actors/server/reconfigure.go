package server

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/lspglob"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
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
//
// A tool that rewrites such a file again and again (every 200 ms for
// 10 s) restarted the server at each watcher batch, and pyright never
// lived long enough to answer. So planned restarts are bounded: the
// first change restarts at once, but one within reconfigureGap of the
// last planned restart stops the process and starts the next only once
// the configuration has been unchanged for reconfigureQuiet (and the gap
// has passed). Meanwhile there is no process to answer with a
// configuration that is no longer on disk: requests wait (for their own
// deadlines), and diagnostics say not_ready because the configuration
// is changing (ErrReconfiguring).
const (
	reconfigureGap   = 2 * time.Second
	reconfigureQuiet = 500 * time.Millisecond
)

// reconfigureDue: the wait of a held planned restart (reconfigure) may
// be over.
type reconfigureDue struct{}

// configChanged returns the first change in m of one of the server's
// configuration files, or of a project file it could not find, if any.
func (a *serverActor) configChanged(m *messages.FilesChanged) (string, bool) {
	for _, c := range m.Changes {
		rel, err := filepath.Rel(a.cfg.Root, c.Path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if a.isConfigFile(rel) && !a.readByProcess(c.Path) || (c.Dir && c.Type == messages.FileDeleted && a.mayHoldConfigFile(rel)) ||
			a.projectFileCreatedAfterFailedLoad(c) {
			return c.Path, true
		}
	}
	return "", false
}

// isConfigFile reports whether rel (slash-separated, relative to the
// root) matches one of the ConfigFiles globs.
func (a *serverActor) isConfigFile(rel string) bool {
	for _, g := range a.configGlobs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

// mayHoldConfigFile reports whether the deleted directory rel may have
// held a configuration file: a directory deleted, renamed or moved away
// takes what was below it, unreported one by one. A pattern below it by
// name ("config/x.json" below "config"), or one at any depth
// ("**/tsconfig.json"), may have been; what was there is gone and
// cannot be asked.
func (a *serverActor) mayHoldConfigFile(rel string) bool {
	for _, g := range a.configGlobs {
		pattern := g.String()
		if strings.HasPrefix(pattern, rel+"/") || strings.HasPrefix(pattern, "**/") {
			return true
		}
	}
	return false
}

// projectFileCreatedAfterFailedLoad reports whether c creates one of the
// server's project files (its root markers) under its root while the
// server says it could not load its project. rust-analyzer discovers its
// Cargo projects only when it starts: with a Cargo.toml created after
// that, it said "Failed to discover workspace" for as long as it ran, and
// every answer was project_error though cargo check found the crate. A
// project file written (a broken one fixed) is forwarded instead
// (projectFileOfFailedLoad): both servers reload it in place.
func (a *serverActor) projectFileCreatedAfterFailedLoad(c messages.FileChange) bool {
	return c.Type == messages.FileCreated && a.projectFileOfFailedLoad(c)
}

// The watcher does not look into ignored directories (build, out, ...),
// where a build writes clangd's compile_commands.json: a build/
// compile_commands.json rewritten with other flags went unseen, and the
// answers said fresh with the flags clangd first read. A ConfigFiles entry
// that names one file (no glob) is stat'ed at every document message
// instead, and one changed since the process started restarts it.

// stampConfigFiles records the stamps of the ConfigFiles that name one
// file, as the process that starts now reads them.
func (a *serverActor) stampConfigFiles() {
	clear(a.configStamps)
	for _, g := range a.configGlobs {
		if rel := g.String(); !strings.ContainsAny(rel, "*?[{") {
			if a.configStamps == nil {
				a.configStamps = make(map[string]paths.Stamp)
			}
			p := filepath.Join(a.cfg.Root, filepath.FromSlash(rel))
			a.configStamps[p] = paths.StampOf(p)
		}
	}
}

// configStampChanged returns a ConfigFiles entry that names one file
// whose stamp changed since the process started, if any (a running or
// starting process: one that is not running reads the disk when it
// starts).
func (a *serverActor) configStampChanged() (string, bool) {
	if a.inc == nil {
		return "", false
	}
	for p, was := range a.configStamps {
		if now := paths.StampOf(p); now != was {
			return p, true
		}
	}
	return "", false
}

// readByProcess reports whether the process that runs read path as it is
// on disk: a ConfigFiles entry that names one file whose stamp is the one
// recorded as the process started. The stat at a document message can
// restart the server before the watcher's report of the same change
// comes; that report must not restart it again (a second planned restart
// so soon would also be held for reconfigureGap).
func (a *serverActor) readByProcess(path string) bool {
	was, ok := a.configStamps[path]
	return ok && a.inc != nil && paths.StampOf(path) == was
}

// compileConfigFiles compiles a definition's ConfigFiles globs. One that
// does not compile (a definition a program built; a configuration file's
// is refused when read) is logged and left out.
func compileConfigFiles(patterns []string, logger *slog.Logger, id string) []*lspglob.Glob {
	var globs []*lspglob.Glob
	for _, p := range patterns {
		g, err := lspglob.CompileGlob(p)
		if err != nil {
			logger.Warn("configFiles pattern is not a glob; left out", "server", id, "pattern", p, "err", err)
			continue
		}
		globs = append(globs, g)
	}
	return globs
}

// reconfigure restarts the server because its configuration file changed
// on disk. Every document's next touch is a new version (NoteChange), so
// that what the old process said of a document never answers for it
// again. A process that runs or starts is shut down gracefully in the
// background; the requests it had in flight are sent again to the next
// one, as after a crash, but the restart spends no crash budget and
// counts as no crash. The next process starts at once, unless a planned
// restart came less than reconfigureGap ago: then it waits until the
// configuration is quiet (holdReconfigure). A server not running (its
// restart after a crash pending, broken, stopped, or a planned restart
// held) reads its configuration when it next starts.
func (a *serverActor) reconfigure(ctx actor.Context, file string) {
	a.st.docs.NoteChange()
	now := a.cfg.Clock.Now()
	a.configChangedAt = now
	if a.inc == nil {
		return
	}
	a.inc.shutdown(a.cfg.Reaper, a.lim.ShutdownTimeout)
	a.inc = nil
	a.osPID = 0
	if since := now.Sub(a.st.reconfiguredAt); !a.st.reconfiguredAt.IsZero() && since < reconfigureGap {
		a.holdReconfigure(ctx, file, since)
		return
	}
	a.cfg.Logger.Info("language server configuration changed; restarting it", "server", a.cfg.Server.ID,
		"root", a.cfg.Root, "file", file)
	a.holdForRestart(ctx, a.serverError(messages.ErrServerCrashed, errReconfigured, nil), false)
	a.restartReconfigured(ctx, now)
}

// holdReconfigure leaves the server stopped until its configuration is
// quiet: its state is StateError with ErrReconfiguring, which is what a
// call that times out meanwhile, and a diagnostics answer, say.
func (a *serverActor) holdReconfigure(ctx actor.Context, file string, since time.Duration) {
	rel, err := filepath.Rel(a.cfg.Root, file)
	if err != nil {
		rel = file
	}
	cause := fmt.Errorf("%s changed again %v after the server restarted for a change of its configuration; "+
		"it starts again once its configuration files are unchanged for %v", filepath.ToSlash(rel),
		since.Round(time.Millisecond), reconfigureQuiet)
	serr := a.serverError(messages.ErrReconfiguring, cause, nil)
	a.lastErr = serr
	a.cfg.Logger.Info("language server configuration changing; holding its restart", "server", a.cfg.Server.ID,
		"root", a.cfg.Root, "file", file)
	a.setState(ctx, messages.StateError, serr)
	a.holdForRestart(ctx, serr, false)
	a.timers.After(a.reconfigureWait(a.cfg.Clock.Now()), &reconfigureDue{})
}

// reconfigureWait is how long a held planned restart still waits at now:
// until the configuration has been quiet for reconfigureQuiet and the
// last planned restart is reconfigureGap old.
func (a *serverActor) reconfigureWait(now time.Time) time.Duration {
	due := a.configChangedAt.Add(reconfigureQuiet)
	if gap := a.st.reconfiguredAt.Add(reconfigureGap); gap.After(due) {
		due = gap
	}
	return max(0, due.Sub(now))
}

// onReconfigureDue starts a held planned restart once its wait is over;
// a change meanwhile moved the wait on, and only the server's state says
// whether it is still held (a crash restart or a stop took over).
func (a *serverActor) onReconfigureDue(ctx actor.Context) {
	if a.inc != nil || a.broken || a.state != messages.StateError || !isReconfiguring(a.lastErr) {
		return
	}
	now := a.cfg.Clock.Now()
	if wait := a.reconfigureWait(now); wait > 0 {
		a.timers.After(wait, &reconfigureDue{})
		return
	}
	a.cfg.Logger.Info("language server configuration quiet; starting it", "server", a.cfg.Server.ID, "root", a.cfg.Root)
	a.restartReconfigured(ctx, now)
}

func (a *serverActor) restartReconfigured(ctx actor.Context, now time.Time) {
	a.st.reconfigured++
	a.st.reconfiguredAt = now
	a.start(ctx)
}

func isReconfiguring(err error) bool {
	se, ok := err.(*messages.ServerError)
	return ok && se.Kind == messages.ErrReconfiguring
}
