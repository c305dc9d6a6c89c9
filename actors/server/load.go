package server

import (
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// A server's failure to load its project (config LoadError, LoadStart).
// rust-analyzer outside a Cargo project, or with a broken Cargo.toml, says
// "Failed to discover workspace" or "Failed to load workspaces" (an error
// window/showMessage), then answers every pull with nothing; gopls with a
// broken go.mod holds an "Error loading workspace" progress and type-checks
// nothing. Both answers said fresh and clean. The actor keeps what the
// server said and tells its observers (messages.ProjectLoad) whenever that
// changes, so that the diagnostics actor answers the server's files
// project_error, quoting it.

// LSP message types (window/showMessage, window/logMessage).
const (
	msgError   = 1
	msgWarning = 2
)

// loadWatch is what one incarnation said of its project's load.
type loadWatch struct {
	errRE, startRE *regexp.Regexp
	// said is the failure the last matching message named, "" when none
	// or when a load began since.
	said string
	// works are the work-done progresses in flight that report a failure
	// (their title matches errRE), by token.
	works map[string]loadWork
	// told is the failure the observers were last told.
	told string
}

// loadWork is a work-done progress that reports a failure to load.
type loadWork struct{ title, message string }

func (w loadWork) String() string { return oneLine(strings.Trim(w.title+": "+w.message, ": ")) }

// oneLine is a server's message on one line, its blank runs made one space
// (rust-analyzer's ends in "\n\nFailed to load workspaces.").
func oneLine(message string) string { return strings.Join(strings.Fields(message), " ") }

// newLoadWatch compiles a definition's patterns, the defaults for those
// it leaves empty. A pattern that does not compile (a definition a
// program built; a configuration file's is refused when read) is logged
// and replaced by the default.
func newLoadWatch(srv *config.Server, logger *slog.Logger) loadWatch {
	return loadWatch{
		errRE:   compileOr(srv.LoadError, config.DefaultLoadError, "loadError", logger, srv.ID),
		startRE: compileOr(srv.LoadStart, config.DefaultLoadStart, "loadStart", logger, srv.ID),
	}
}

func compileOr(expr, def, field string, logger *slog.Logger, id string) *regexp.Regexp {
	if expr != "" {
		re, err := regexp.Compile(expr)
		if err == nil {
			return re
		}
		logger.Warn(field+" is not a regular expression; using the default", "server", id, "err", err)
	}
	return regexp.MustCompile(def)
}

// failure is what the server says now of its project's load: a failure
// a progress in flight reports, else one a message named; "" when loaded.
func (w *loadWatch) failure() string {
	if len(w.works) > 0 {
		tokens := make([]string, 0, len(w.works))
		for t := range w.works {
			tokens = append(tokens, t)
		}
		slices.Sort(tokens)
		return w.works[tokens[0]].String()
	}
	return w.said
}

// onLoadMessage notes a message the server showed or logged.
func (a *serverActor) onLoadMessage(ctx actor.Context, typ int, message string) {
	w := &a.load
	switch {
	case (typ == msgError || typ == msgWarning) && w.errRE.MatchString(message):
		w.said = oneLine(message)
	case w.startRE.MatchString(message):
		w.said = ""
	default:
		return
	}
	a.tellLoad(ctx)
}

// loadProgress notes a work-done progress and reports whether it is one
// that reports a failure to load (which is no indexing work).
func (a *serverActor) loadProgress(ctx actor.Context, token, kind, title, message string) bool {
	w := &a.load
	work, failing := w.works[token]
	switch {
	case kind == "begin" && w.errRE.MatchString(title):
		if w.works == nil {
			w.works = make(map[string]loadWork)
		}
		w.works[token], failing = loadWork{title: title, message: message}, true
	case kind == "begin" && w.startRE.MatchString(title):
		w.said = ""
	case kind == "report" && failing && message != "":
		work.message = message
		w.works[token] = work
	case kind == "end" && failing:
		delete(w.works, token)
	}
	a.tellLoad(ctx)
	return failing
}

// resetLoad forgets what the last incarnation said: a new process loads
// its project again.
func (a *serverActor) resetLoad(ctx actor.Context) {
	a.load.said = ""
	clear(a.load.works)
	a.tellLoad(ctx)
}

// tellLoad tells the observers what the server says of its project's load
// when that changed since they were last told.
func (a *serverActor) tellLoad(ctx actor.Context) {
	now := a.load.failure()
	if now == a.load.told {
		return
	}
	a.load.told = now
	// Info, not a warning: every answer about the server's files says it.
	a.cfg.Logger.Info("project load", "server", a.cfg.Server.ID, "root", a.cfg.Root, "failure", now)
	a.tellObservers(ctx, &messages.ProjectLoad{ServerID: a.cfg.Server.ID, Root: a.cfg.Root, Failure: now})
}
