package server

import (
	"log/slog"
	"regexp"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// A server's readiness for workspace-wide requests (config ReadyLog).
// pyright answers references as soon as it runs, before it has found its
// workspace's source files, and reports no progress for that search: the
// first references of a function with 18 callers named its declaration
// alone, with nothing to say more could come. It logs "Found N source
// files" once it knows them. With ReadyLog set, the workspace-wide
// requests (references, implementations, incoming calls, workspace
// symbols) wait after each start until the server logs a matching line,
// for at most maxNotReady; the others go at once.

// maxNotReady bounds the wait for a server's ready line: a server that
// never logs it (another version, another wording) only loses that long.
const maxNotReady = 10 * time.Second

// readyOver is the timer message that ends the wait for the ready line.
type readyOver struct{ gen int }

// workspaceWide reports whether method's answer comes from a search of
// the whole workspace.
func workspaceWide(method string) bool {
	switch method {
	case "textDocument/references", "textDocument/implementation", "callHierarchy/incomingCalls", "workspace/symbol":
		return true
	}
	return false
}

// awaitReady starts an incarnation's wait for its ready line, once it
// runs, unless the line came already.
func (a *serverActor) awaitReady() {
	if a.readyLog == nil || a.readySeen {
		return
	}
	a.notReady = true
	a.timers.After(maxNotReady, &readyOver{gen: a.inc.gen})
}

// holdUntilReady parks c, sent before the server is ready, and reports
// whether it did.
func (a *serverActor) holdUntilReady(p *pending, id uint64) bool {
	if !a.notReady || p.pull != nil || !workspaceWide(p.req.Method) {
		return false
	}
	a.calls.Park(id)
	a.afterReady = append(a.afterReady, id)
	return true
}

// onServerLog notes the server's ready line, which may come before its
// answer to initialize.
func (a *serverActor) onServerLog(ctx actor.Context, message string) {
	if a.readyLog == nil || a.readySeen || !a.readyLog.MatchString(message) {
		return
	}
	a.readySeen = true
	if a.notReady {
		a.ready(ctx)
	}
}

func (a *serverActor) onReadyOver(ctx actor.Context, m *readyOver) {
	if a.notReady && a.current(m.gen) {
		a.cfg.Logger.Debug("no ready line from the server; workspace-wide requests go now",
			"server", a.cfg.Server.ID, "after", maxNotReady)
		a.ready(ctx)
	}
}

// ready sends the parked requests, in the order they came.
func (a *serverActor) ready(ctx actor.Context) {
	a.notReady = false
	for i := len(a.afterReady) - 1; i >= 0; i-- {
		a.calls.Requeue(a.afterReady[i])
	}
	a.afterReady = nil
	a.dispatchWaiting(ctx)
}

// compileReadyLog compiles a definition's ReadyLog; nil when it has none,
// or when it is no regular expression (a configuration file's is refused
// when read; one a program built is logged and not waited for).
func compileReadyLog(expr string, logger *slog.Logger, id string) *regexp.Regexp {
	if expr == "" {
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		logger.Warn("readyLog is not a regular expression; not waiting for a ready line", "server", id, "err", err)
		return nil
	}
	return re
}
