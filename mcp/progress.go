package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// progressDelay is how long a call runs before its progress reporter
// first looks at the servers: a fast call reports nothing.
const progressDelay = 200 * time.Millisecond

// progressPoll is how often the reporter looks again.
const progressPoll = 250 * time.Millisecond

// progressQuiet is the most time between two notifications while what the
// servers do stays the same (the elapsed time still moves on).
const progressQuiet = time.Second

// scope says which servers a call needs: those that serve files, or all
// of them (workspaceSymbol).
type scope struct {
	all   bool
	files []string
}

// lspScope is the scope of an lsp call.
func lspScope(in LSPInput) scope {
	if in.Operation == OpWorkspaceSymbol {
		return scope{all: true}
	}
	return scope{files: []string{in.FilePath}}
}

// diagnosticsScope is the scope of a diagnostics call.
func diagnosticsScope(in DiagnosticsInput) scope { return scope{files: in.Files} }

// reportProgress starts the progress reporter of one call when the client
// gave a progress token: while the call runs, once it has run progressDelay,
// it sends notifications/progress naming each server the call needs that is
// starting, restarting or working, what it does and how long the call has
// waited. stop ends the reporter and waits for it; call it exactly once,
// when the call ends. Without a token it starts nothing.
func (t *tools) reportProgress(ctx context.Context, req *sdk.CallToolRequest, sc scope) (stop func()) {
	if req == nil || req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &reporter{tools: t, ss: req.Session, token: req.Params.GetProgressToken(), scope: sc, start: time.Now()}
	var wg sync.WaitGroup
	// The reporter lives until stop cancels ctx (or the call's context
	// ends); stop joins it.
	wg.Go(func() { r.run(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}

// reporter is the progress reporter of one call, owned by its goroutine.
type reporter struct {
	*tools
	ss    *sdk.ServerSession
	token any
	scope scope
	start time.Time

	keys     []messages.ServerKey // the servers needed; Root "" matches any root
	resolved bool                 // keys is set
	sent     float64              // notifications sent: the progress counter
	last     string               // what the last notification said, elapsed time left out
	lastAt   time.Time
}

// run polls the servers until ctx ends, or until a notification cannot be
// sent.
func (r *reporter) run(ctx context.Context) {
	timer := time.NewTimer(progressDelay)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if err := r.poll(ctx); err != nil {
			if ctx.Err() == nil {
				r.log.DebugContext(ctx, "mcp: progress notification", "error", err)
			}
			return
		}
		timer.Reset(progressPoll)
	}
}

// poll asks the router what the servers do and notifies the client when a
// server the call needs is busy and there is news (or progressQuiet has
// passed). Only a failed notification is an error.
func (r *reporter) poll(ctx context.Context) error {
	if !r.resolved {
		r.keys, r.resolved = r.needed(), true
	}
	infos, err := r.rt.Servers(ctx)
	if err != nil {
		return nil // the runtime is shutting down, or ctx ended: the call will say
	}
	what := r.describe(infos)
	now := time.Now()
	if what == "" || what == r.last && now.Sub(r.lastAt) < progressQuiet {
		return nil
	}
	r.sent++
	r.last, r.lastAt = what, now
	elapsed := now.Sub(r.start).Round(100 * time.Millisecond)
	return r.ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: r.token,
		Message: fmt.Sprintf("waiting for %s (%v)", what, elapsed), Progress: r.sent})
}

// needed lists the servers the call's files need, with the root each file
// has for each (any root when it cannot be told); nil when the call needs
// all of them. It reads the file system.
func (r *reporter) needed() []messages.ServerKey {
	if r.scope.all {
		return nil
	}
	ws := r.rt.Workspace()
	var keys []messages.ServerKey
	for _, f := range r.scope.files {
		abs, err := paths.CheckFile(ws, f)
		if err != nil {
			continue // the call fails on it
		}
		for _, s := range r.rt.Registry().ForPath(abs) {
			if root, ok := s.FindRoot(ws, abs); ok {
				keys = append(keys, messages.ServerKey{ServerID: s.ID, Root: root})
			}
		}
	}
	if keys == nil {
		keys = []messages.ServerKey{} // needs none: nothing to report
	}
	return keys
}

// describe says what the busy servers among those needed do, "" when
// none is busy: "gopls: starting; pyright (web): indexing".
func (r *reporter) describe(infos []messages.ServerInfo) string {
	var parts []string
	for _, info := range infos {
		if !r.needs(info.ServerKey) {
			continue
		}
		if what := activity(info); what != "" {
			parts = append(parts, r.serverName(info.ServerKey)+": "+what)
		}
	}
	return strings.Join(parts, "; ")
}

// needs says whether the call needs the server k.
func (r *reporter) needs(k messages.ServerKey) bool {
	if r.keys == nil {
		return true
	}
	for _, n := range r.keys {
		if n.ServerID == k.ServerID && (n.Root == "" || n.Root == k.Root) {
			return true
		}
	}
	return false
}

// serverName is the server's id, with its root relative to the workspace
// when that is not the workspace itself.
func (r *reporter) serverName(k messages.ServerKey) string {
	rel, err := filepath.Rel(r.rt.Workspace(), k.Root)
	if err != nil || rel == "." || k.Root == "" {
		return k.ServerID
	}
	return fmt.Sprintf("%s (%s)", k.ServerID, filepath.ToSlash(rel))
}

// activity says what a server does that a call waits for, "" when it
// is idle or broken (a broken server fails the call, it is not waited for).
func activity(info messages.ServerInfo) string {
	switch {
	case info.Broken:
		return ""
	case info.State == messages.StateError && errors.Is(info.Err, messages.ErrReconfiguring):
		return "waiting for its configuration files to stop changing"
	case info.State == messages.StateError && info.Err != nil:
		return "restarting after a crash (" + firstLine(info.Err.Error()) + ")"
	case info.State == messages.StateError:
		return "restarting after a crash"
	case info.Work != "":
		return info.Work
	case info.State == messages.StateStarting, info.State == messages.StateStopped:
		// A stopped server that a call in flight needs is about to start.
		return "starting"
	}
	return ""
}

// firstLine is the first line of s, cut to 120 bytes: a crash's error
// may quote the server's stderr.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
