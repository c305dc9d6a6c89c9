package router

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// Workspace requests (workspace/symbol) go to every root of the workspace
// that a server's markers imply, found by a bounded walk (cached until
// files appear or disappear), and to every server actor running besides:
// a symbol in a module no call ever touched is found too. With a Path,
// only that file's servers are asked. Servers that are not running yet are
// started (at most maxWorkspaceServers in all) and given startWait to
// answer; those still starting then are named in the answer.

// maxWorkspaceServers bounds the servers one workspace request reaches.
const maxWorkspaceServers = 16

// startWait bounds the wait for a server started by a workspace request.
const startWait = 10 * time.Second

// impliedWalked is the result of the walk for implied roots.
type impliedWalked struct{ keys []messages.ServerKey }

func (r *routerActor) onWorkspaceRequest(ctx actor.Context, sender *actor.PID, m *messages.WorkspaceRequest) {
	if m.Method == "" {
		r.reply(ctx, sender, &messages.FileResponse{ID: m.ID, Err: errNoMethod(m)})
		return
	}
	if m.Path != "" {
		r.onFileRequest(ctx, sender, &messages.FileRequest{ID: m.ID, Path: m.Path, Method: m.Method,
			Params: m.Params, Timeout: m.Timeout, Session: m.Session})
		return
	}
	if r.implied != nil {
		r.askWorkspace(ctx, sender, m)
		return
	}
	f := actor.NewFuture(ctx.ActorSystem(), time.Minute)
	root, workspace, servers := ctx.ActorSystem().Root, r.cfg.Workspace, r.cfg.Registry.Servers()
	// Lives for one bounded walk; joined by the Reaper.
	r.cfg.Reaper.Go(func() { root.Send(f.PID(), &impliedWalked{keys: impliedTargets(workspace, servers)}) })
	ctx.ReenterAfter(f, func(res any, _ error) {
		if w, ok := res.(*impliedWalked); ok {
			r.implied = append([]messages.ServerKey{}, w.keys...) // not nil: walked
		}
		r.askWorkspace(ctx, sender, m)
	})
}

// askWorkspace sends the request to the implied roots and the running
// servers.
func (r *routerActor) askWorkspace(ctx actor.Context, sender *actor.PID, m *messages.WorkspaceRequest) {
	var keys []messages.ServerKey
	var defs []*config.Server
	var timeouts []time.Duration
	var missing []string // implied servers left out: not installed
	add := func(k messages.ServerKey, def *config.Server) {
		for _, have := range keys {
			if have == k {
				return
			}
		}
		if def == nil || len(keys) == maxWorkspaceServers {
			return
		}
		t := m.Timeout
		if e, ok := r.servers[k]; !ok || e.state != messages.StateRunning {
			t = startWait // starting: answered as starting when not running in time
			if m.Timeout > 0 {
				t = min(m.Timeout, startWait)
			}
		}
		keys, defs, timeouts = append(keys, k), append(defs, def), append(timeouts, t)
	}
	for k, e := range r.servers {
		add(k, e.def)
	}
	for _, k := range r.implied {
		def, _ := r.cfg.Registry.Get(k.ServerID)
		// An implied server that is not installed would only answer that it
		// cannot start (package.json implies the JSON, CSS and HTML
		// servers); a probe asks it all the same, to report it.
		if _, running := r.servers[k]; def != nil && !running && !m.All && !installed(def) {
			if !slices.Contains(missing, def.ID) {
				missing = append(missing, def.ID)
			}
			continue
		}
		add(k, def)
	}
	if len(keys) == 0 {
		detail := "no running server and no root marker found"
		if len(missing) > 0 {
			detail = fmt.Sprintf("the servers the workspace's root markers imply are not installed: %s (agentlsp servers --install NAME)",
				strings.Join(missing, ", "))
		}
		r.reply(ctx, sender, &messages.FileResponse{ID: m.ID, Err: &messages.PathError{
			Path: r.cfg.Workspace, Kind: messages.ErrNoServer, Detail: detail}})
		return
	}
	r.openForWorkspace(ctx, keys, defs, func() {
		r.fanoutRequestEach(ctx, sender, &messages.FileResponse{ID: m.ID}, m.Method, m.Params, timeouts, keys, defs)
	})
}
