package router

import (
	"path/filepath"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/lookpath"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// maxSourceDirs bounds the directories read to find a server's file.
const maxSourceDirs = 256

// installed reports whether def's command can be started: an absolute path
// that exists, or a bare name found in PATH. A relative path, or a PATH of
// the server's own, is taken as installed (the start tells).
func installed(def *config.Server) bool {
	if _, ok := def.Env["PATH"]; ok {
		return true
	}
	if filepath.IsAbs(def.Command) || filepath.Base(def.Command) == def.Command {
		_, err := lookpath.Look(def.Command) // not rustup's proxy for a component the toolchain lacks
		return err == nil
	}
	return true
}

// sourceFile returns a file under root that def serves there, the least
// deep first: not in an ignored directory, nor below another of def's roots
// (a directory holding one of its markers). "" when none is found within
// maxSourceDirs directories.
func sourceFile(root string, def *config.Server) string {
	ignored := paths.NewFilter(nil)
	dirs := []string{root}
	for read := 0; len(dirs) > 0 && read < maxSourceDirs; read++ {
		dir := dirs[0]
		dirs = dirs[1:]
		ls, err := list(dir, ignored)
		if err != nil {
			continue
		}
		if _, other := firstPresent(ls.names, def.RootMarkers); other && dir != root {
			continue
		}
		for _, e := range ls.entries {
			if e.Type().IsRegular() && def.Extensions[strings.ToLower(filepath.Ext(e.Name()))] != "" {
				return filepath.Join(dir, e.Name())
			}
		}
		dirs = append(dirs, ls.subdirs...)
	}
	return ""
}

// sourcesFound is the result of the walks for servers that need a file
// open before a workspace request: a file per server ("" when none).
type sourcesFound struct{ files []string }

// openForWorkspace opens, for the keeper, one file of each of keys' servers
// that answers workspace requests only with a file open (OpenForWorkspace)
// and has none open, then calls ask. The files are found in a reaper
// goroutine; each is sent to its servers before ask sends anything, so the
// server actors take them first.
func (r *routerActor) openForWorkspace(ctx actor.Context, keys []messages.ServerKey, defs []*config.Server, ask func()) {
	var need []int
	for i, k := range keys {
		if defs[i].OpenForWorkspace && r.openFiles(k) == 0 {
			need = append(need, i)
		}
	}
	if len(need) == 0 {
		ask()
		return
	}
	roots := make([]string, len(need))
	needDefs := make([]*config.Server, len(need))
	for j, i := range need {
		roots[j], needDefs[j] = keys[i].Root, defs[i]
	}
	f := actor.NewFuture(ctx.ActorSystem(), startWait)
	root := ctx.ActorSystem().Root
	// Lives for a few bounded walks; joined by the Reaper.
	r.cfg.Reaper.Go(func() {
		files := make([]string, len(roots))
		for j := range roots {
			files[j] = sourceFile(roots[j], needDefs[j])
		}
		root.Send(f.PID(), &sourcesFound{files: files})
	})
	ctx.ReenterAfter(f, func(res any, _ error) {
		found, _ := res.(*sourcesFound)
		left := 1 // ask once every file is sent, or could not be
		done := func() {
			if left--; left == 0 {
				ask()
			}
		}
		for j, i := range need {
			if found == nil || found.files[j] == "" {
				continue
			}
			left++
			r.keep(ctx, found.files[j], keptKey{server: keys[i]}, max(defs[i].OpenTargets, 1), done)
		}
		done()
	})
}
