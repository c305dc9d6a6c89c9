package watcher

import (
	"path/filepath"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Which changes the watcher reports below directories with ignored names:
// packages of sources that carry an output's name (build, out, dist,
// target), directories with such a name watched alone until they become
// one, and vendor/ replaced as a whole.

// visible reports whether a change to path is worth reporting: one below
// no ignored directory (paths.Filter.Visible), or one in a directory with
// an ignored name that the watcher watches as a package of sources (Go,
// Python: paths.SourcePackage), or such a package made in a watched
// directory. Events come only from watched directories.
func (a *watcherActor) visible(path string, dir bool, typ messages.FileChangeType) bool {
	if a.ignored.Visible(a.cfg.Workspace, path, dir) {
		return true
	}
	if !paths.Within(a.cfg.Workspace, path) {
		return false
	}
	if _, watched := a.dirs[path]; watched && dir {
		return true // a package directory deleted or renamed
	}
	// Below a directory with an ignored name, each must be a package now
	// (by the disk, not by the walks, which may not have told yet).
	if a.ignored.Unwatched(a.cfg.Workspace, path) != "" {
		return false
	}
	if !dir || !a.ignored.Ignored(filepath.Base(path)) || paths.SourcePackage(path) {
		return true
	}
	if typ == messages.FileCreated && paths.PackageDirName(filepath.Base(path)) {
		a.watchShallow(path)
	}
	return false
}

// maxShallow bounds the directories watched alone.
const maxShallow = 256

// watchShallow watches a directory with an output's name that holds no
// source file, alone (shallow): made empty by a checkout, it may be
// filled with a package's files next. One that holds a source file by
// now is walked as a package.
func (a *watcherActor) watchShallow(dir string) {
	if len(a.shallow) >= maxShallow || a.w == nil || a.w.Add(dir) != nil {
		return
	}
	a.shallow[dir] = struct{}{}
	if paths.SourcePackage(dir) { // filled meanwhile
		a.promote(dir)
	}
}

// noteShallow follows the directories watched alone (shallow): a Go or
// Python file made in one makes it a package, walked and watched like any
// other (the file itself is reported as visible finds it: its directory
// is a package now); one deleted is forgotten. The other changes there are
// not visible.
func (a *watcherActor) noteShallow(e watchEvent) {
	if _, ok := a.shallow[e.path]; ok && e.typ == messages.FileDeleted {
		delete(a.shallow, e.path)
		return
	}
	dir := filepath.Dir(e.path)
	if _, ok := a.shallow[dir]; ok && !e.dir && e.typ != messages.FileDeleted && paths.SourceFile(e.path) {
		a.promote(dir)
	}
}

// promote walks a shallow directory that became a package: it is watched
// like any other, and what the walk finds is reported as created.
func (a *watcherActor) promote(dir string) {
	delete(a.shallow, dir)
	a.enqueue(&a.queue, dir)
}

// vendorReplaced reports whether e made, deleted or renamed a directory
// named vendor in a watched directory of the workspace. The watcher does
// not look into vendor/, but go mod vendor removes it and writes it again:
// that is reported as the deletion of the directory (whatever e's type), so
// that servers forget what they read below it (gopls expands it into the
// files it knew there) and the router reads the documents open there
// again. A file changed in place below vendor/ is not seen.
func (a *watcherActor) vendorReplaced(e watchEvent) bool {
	if !e.dir || e.closed || e.typ == messages.FileChanged || filepath.Base(e.path) != "vendor" {
		return false
	}
	_, watched := a.dirs[filepath.Dir(e.path)]
	return watched && paths.Within(a.cfg.Workspace, e.path)
}
