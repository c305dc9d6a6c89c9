package watcher

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// readEvents runs src's reader: each batch, classified, goes to the actor
// with its number (even when nothing in it is visible: the number is what
// a Probe compares). It owns the file sizes that tell a resize (a change)
// from a pure chmod (ignored).
func readEvents(src source, marks string, gen uint64, send func(any)) {
	sizes := make(map[string]int64)
	closes := src.closes()
	src.run(func(seq uint64, evs []fsnotify.Event, err error) {
		var batch []watchEvent
		for _, ev := range evs {
			batch = classify(batch, ev, marks, sizes, closes)
		}
		send(&watchEvents{gen: gen, seq: seq, events: batch, err: err})
	})
}

// classify appends ev as a change: Create is created (a directory is
// marked, to be walked), Write changed (a write in progress, when the
// source reports closes), Remove and Rename deleted, Chmod changed only
// when the size changed since the previous chmod; a close after writing
// ends the write.
func classify(batch []watchEvent, ev fsnotify.Event, marks string, sizes map[string]int64, closes bool) []watchEvent {
	if marks != "" && filepath.Dir(ev.Name) == marks {
		// A marker written: every event queued before the write was read.
		if ev.Has(fsnotify.Write) {
			return append(batch, watchEvent{mark: filepath.Base(ev.Name)})
		}
		return batch
	}
	e := watchEvent{path: ev.Name}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		e.typ, e.renamed = messages.FileDeleted, !ev.Has(fsnotify.Remove)
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(ev.Name)
		e.typ, e.dir = messages.FileCreated, err == nil && fi.IsDir()
	case ev.Has(fsnotify.Write):
		e.typ, e.writing = messages.FileChanged, closes
	case ev.Has(opCloseWrite):
		e.closed = true
	case ev.Has(fsnotify.Chmod) && resized(ev.Name, sizes):
		e.typ = messages.FileChanged
	default:
		return batch
	}
	if !ev.Has(fsnotify.Chmod) {
		delete(sizes, ev.Name) // the next chmod compares with a fresh size
	}
	return append(batch, e)
}

// resized records the size of a regular file and reports whether it
// differs from the one recorded before (none recorded: no).
func resized(path string, sizes map[string]int64) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	old, known := sizes[path]
	if !known && len(sizes) >= maxChmodSizes {
		clear(sizes)
	}
	sizes[path] = fi.Size()
	return known && old != fi.Size()
}

// walkJob is one walk; it owns its inputs (known is a copy).
type walkJob struct {
	w         source
	stop      <-chan struct{}
	ignored   paths.Filter
	workspace string
	maxDirs   int
	maxFound  int // entries reported at most
	roots     []string
	prunes    []string
	known     map[string]struct{} // watched directories
	report    bool                // report entries found below the roots
	res       watchWalked
}

// run removes the stale watches below renamed directories, then walks the
// roots and watches every directory not ignored, within the bound.
func (j *walkJob) run(gen uint64) *watchWalked {
	j.res.gen = gen
	j.prune()
	for _, root := range j.roots {
		if filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			return j.visit(root, p, d, err)
		}) != nil {
			break // stopped, or the kernel's limit
		}
	}
	return &j.res
}

func (j *walkJob) visit(root, p string, d fs.DirEntry, err error) error {
	select {
	case <-j.stop:
		return fsnotify.ErrClosed
	default:
	}
	switch {
	case err != nil:
		return nil // vanished or unreadable: skipped
	case p != root && d.IsDir() && j.ignored.Ignored(d.Name()) && !paths.SourcePackage(p):
		if paths.PackageDirName(d.Name()) && len(j.res.shallow) < maxShallow && j.w.Add(p) == nil {
			j.res.shallow = append(j.res.shallow, p) // a package if a source file appears
		}
		return filepath.SkipDir
	case p != root && j.report && len(j.res.found) >= j.maxFound:
		j.res.foundDropped++
	case p != root && j.report:
		j.res.found = append(j.res.found, p)
	}
	if d.Type()&fs.ModeSymlink != 0 {
		j.link(p)
	}
	if !d.IsDir() {
		return nil
	}
	return j.add(p)
}

// maxLinks bounds the symbolic links to directories a watcher remembers.
const maxLinks = 256

// link records p, a symbolic link, when it leads to a directory of the
// workspace: that directory is watched under its real path (a walk does
// not follow links), and a server that reads a package through the link
// (gopls, for an import whose directory is a link) knows its files under
// the link's path.
func (j *walkJob) link(p string) {
	if len(j.res.links) >= maxLinks {
		return
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || real == p || !paths.Within(j.workspace, real) || paths.Within(real, p) {
		return // outside, or a loop (a link to a directory above it): every change twice
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return
	}
	if j.res.links == nil {
		j.res.links = make(map[string]string)
	}
	j.res.links[p] = real
}

// add watches directory p unless it is watched or the bound is reached.
func (j *walkJob) add(p string) error {
	if _, ok := j.known[p]; ok {
		return nil
	}
	if len(j.known) >= j.maxDirs {
		j.res.limited = true
		return filepath.SkipDir
	}
	switch err := j.w.Add(p); {
	case errors.Is(err, fsnotify.ErrClosed):
		return err
	case errors.Is(err, syscall.ENOSPC): // fs.inotify.max_user_watches
		j.res.limited, j.res.err = true, err
		return err
	case err != nil:
		return filepath.SkipDir // vanished or unreadable
	}
	j.known[p] = struct{}{}
	j.res.added = append(j.res.added, p)
	return nil
}

// prune removes the watches below renamed directories: they still watch
// the moved directories, under the old names.
func (j *walkJob) prune() {
	if len(j.prunes) == 0 {
		return
	}
	for _, p := range j.w.WatchList() {
		if slices.ContainsFunc(j.prunes, func(dir string) bool { return strings.HasPrefix(p, dir+"/") }) {
			_ = j.w.Remove(p)
		}
	}
}
