package router

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// rootKey and rootResult cache root resolution per server and directory.
type (
	rootKey struct {
		serverID string
		dir      string
	}
	rootResult struct {
		root string
		ok   bool
	}
)

// maxRootCache bounds the root cache; it is cleared when full.
const maxRootCache = 10000

// route is a resolved file: its servers with their definitions.
type route struct {
	path, uri string
	targets   []messages.Target
	defs      []*config.Server
}

// resolve checks a path and finds its servers. It reads the file system
// (stats, cached per directory).
func (r *routerActor) resolve(path string) *messages.Resolved {
	rt, err := r.route(path, false)
	if err != nil {
		return &messages.Resolved{Path: path, Err: err}
	}
	return &messages.Resolved{Path: rt.path, URI: rt.uri, Targets: rt.targets}
}

// route resolves a file to its servers; the file must exist on disk
// unless missing is allowed or it is open (a document in memory).
func (r *routerActor) route(path string, missing bool) (*route, error) {
	abs, err := r.checkFile(path, missing)
	if err != nil {
		return nil, err
	}
	defs := r.cfg.Registry.Match(abs) // shared: read only (server clones on spawn)
	if len(defs) == 0 {
		return nil, &messages.PathError{Path: path, Kind: messages.ErrNoServer,
			Detail: "configured extensions: " + strings.Join(r.cfg.Registry.Extensions(), " ")}
	}
	rt := &route{path: abs, uri: paths.URI(abs)}
	for _, def := range defs {
		root, ok := r.rootOf(def, abs)
		if !ok {
			continue
		}
		lang, _ := def.LanguageID(abs)
		rt.targets = append(rt.targets, messages.Target{
			ServerKey: messages.ServerKey{ServerID: def.ID, Root: root}, LanguageID: lang,
		})
		rt.defs = append(rt.defs, def)
	}
	if len(rt.targets) == 0 {
		return nil, &messages.PathError{Path: path, Kind: messages.ErrNoServer, Detail: errNoTargets.Error()}
	}
	return rt, nil
}

func (r *routerActor) rootOf(def *config.Server, abs string) (string, bool) {
	k := rootKey{serverID: def.ID, dir: filepath.Dir(abs)}
	if res, ok := r.roots[k]; ok {
		return res.root, res.ok
	}
	root, ok := def.FindRoot(r.cfg.Workspace, abs)
	if len(r.roots) >= maxRootCache {
		clear(r.roots)
	}
	r.roots[k] = rootResult{root: root, ok: ok}
	return root, ok
}

// Bounds of the walk for implied roots.
const (
	maxImpliedDepth = 6
	maxImpliedDirs  = 2000
)

// impliedTargets finds the servers the workspace's root markers imply: a
// breadth-first walk (depth 6, at most 2000 directories read, ignored
// directories skipped) looking for each enabled server's markers. It runs
// in a goroutine.
func impliedTargets(workspace string, servers []*config.Server) []messages.ServerKey {
	keys, _ := impliedWalk(workspace, servers, maxImpliedDirs)
	return keys
}

// impliedWalk is impliedTargets with its bound, reporting the directories
// it read.
func impliedWalk(workspace string, servers []*config.Server, maxDirs int) ([]messages.ServerKey, int) {
	seen := make(map[messages.ServerKey]bool)
	ignored := paths.NewFilter(nil)
	var out []messages.ServerKey
	dirs := []string{workspace}
	visited := 0
	for depth := 0; depth <= maxImpliedDepth && len(dirs) > 0; depth++ {
		var next []string
		for _, dir := range dirs {
			if visited == maxDirs {
				return out, visited
			}
			visited++
			ls, err := list(dir, ignored)
			if err != nil {
				continue
			}
			next = append(next, ls.subdirs...)
			for _, def := range servers {
				marker, ok := firstPresent(ls.names, def.RootMarkers)
				if !ok {
					continue
				}
				// The server's own root strategy decides (go.work over go.mod,
				// exclusion markers), as for a file next to the marker.
				root, ok := def.FindRoot(workspace, filepath.Join(dir, marker))
				k := messages.ServerKey{ServerID: def.ID, Root: root}
				if ok && !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
		dirs = next
	}
	return out, visited
}

// firstPresent returns the first marker (a name or a glob) present in names.
// listing is a directory read once for a walk: its entries, their names
// (for root markers) and its subdirectories to walk, ignored ones left out.
type listing struct {
	entries []os.DirEntry
	names   map[string]bool
	subdirs []string
}

func list(dir string, ignored paths.Filter) (listing, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return listing{}, err
	}
	ls := listing{entries: entries, names: make(map[string]bool, len(entries))}
	for _, e := range entries {
		ls.names[e.Name()] = true
		if e.IsDir() && !ignored.Ignored(e.Name()) {
			ls.subdirs = append(ls.subdirs, filepath.Join(dir, e.Name()))
		}
	}
	return ls, nil
}

func firstPresent(names map[string]bool, markers []string) (string, bool) {
	for _, m := range markers {
		if !strings.ContainsAny(m, "*?[") {
			if names[m] {
				return m, true
			}
			continue
		}
		for n := range names {
			if ok, _ := filepath.Match(m, n); ok {
				return n, true
			}
		}
	}
	return "", false
}

// checkFile resolves a path inside the workspace: an existing regular
// file, or (missing allowed, or a document open in memory) a path that
// does not exist yet.
func (r *routerActor) checkFile(path string, missing bool) (string, error) {
	inside, err := r.inWorkspace(path)
	if err != nil {
		return "", err
	}
	abs, err := paths.CheckResolved(path, inside)
	if errors.Is(err, messages.ErrFileNotFound) && (missing || r.docs[inside] != nil) {
		return inside, nil
	}
	return abs, err
}

// maxResolved bounds the paths the router remembers resolved.
const maxResolved = 4096

// inWorkspace is paths.InWorkspace, remembered while nothing changes in
// the workspace (a symlink along a path may have been replaced): every
// watcher batch clears it, and every call that resolves a path comes after
// the batches of the changes before it (a barrier, or the probe). Without
// a watcher nothing is remembered.
func (r *routerActor) inWorkspace(path string) (string, error) {
	if r.watcher == nil {
		return paths.InWorkspace(r.cfg.Workspace, path)
	}
	if abs, ok := r.resolved[path]; ok {
		return abs, nil
	}
	abs, err := paths.InWorkspace(r.cfg.Workspace, path)
	if err == nil {
		if len(r.resolved) >= maxResolved {
			clear(r.resolved)
		}
		r.resolved[path] = abs
	}
	return abs, err
}
