package server

import (
	"path/filepath"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/lspglob"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// didChangeWatchedFiles is the method servers register to hear of changes
// on disk.
const didChangeWatchedFiles = "workspace/didChangeWatchedFiles"

// onFilesChanged forwards to the server the changes that match the file
// watchers it registered (glob patterns and kinds honoured). Sent, they
// count as a change of the server's view (the document store's Seq).
//
// A source file the server has open is the exception: its new text reaches
// the server as a didChange (the router re-syncs open documents from
// disk), so a change or creation on disk is not forwarded as well. gopls
// answers one with a second diagnosis of its own, which took an edit from
// 4 to 36 ms on a small module. A deletion is always forwarded, and so is
// any change of a project file the server has open (go.mod: gopls reloads
// the module on it).
//
// A change to a file of the server's languages under its root that it did
// not register to hear of (clangd and a C header) still counts as a change
// of its view: the open documents that include it are diagnosed again when
// next asked about.
func (a *serverActor) onFilesChanged(ctx actor.Context, m *messages.FilesChanged) {
	if !a.running() {
		return
	}
	var changes []map[string]any
	unheard, relevant := false, false
	for _, c := range m.Changes {
		watched := a.watching(c) || a.projectFileOfFailedLoad(c)
		source := a.cfg.Server.IsSource(c.Path) && paths.Within(a.cfg.Root, c.Path)
		switch {
		case watched && !a.syncedAsText(c):
			changes = append(changes, map[string]any{"uri": c.URI, "type": int(c.Type)})
		case !a.st.docs.IsOpen(c.URI) && source:
			unheard = true
		}
		if c.Type != messages.FileDeleted && !a.st.docs.IsOpen(c.URI) && source {
			a.noteChangedOnDisk(c.URI)
		}
		relevant = relevant || source || watched
	}
	if relevant {
		a.checkDue("") // a check on save reads the disk (savecheck.go)
	}
	if len(changes) > 0 || unheard {
		a.st.docs.NoteChange()
	}
	if len(changes) > 0 {
		a.notify(ctx, didChangeWatchedFiles, map[string]any{"changes": changes})
	}
}

// projectFileOfFailedLoad reports whether c is a change of one of the
// server's project files (its root markers: Cargo.toml, go.mod, ...) under
// its root while the server says it could not load its project (load.go):
// the server hears of it whether or not it registered to. rust-analyzer
// registers its watchers once a workspace loaded, so a broken Cargo.toml
// fixed on disk went unheard, and its files stayed project_error.
func (a *serverActor) projectFileOfFailedLoad(c messages.FileChange) bool {
	return a.load.told != "" && !c.Dir && paths.Within(a.cfg.Root, c.Path) &&
		slices.Contains(a.cfg.Server.RootMarkers, filepath.Base(c.Path))
}

// syncedAsText reports whether c is a change or creation of a source file
// (one of the server's extensions) the server has open.
func (a *serverActor) syncedAsText(c messages.FileChange) bool {
	if c.Type == messages.FileDeleted {
		return false
	}
	return a.cfg.Server.IsSource(c.Path) && a.st.docs.IsOpen(c.URI)
}

func (a *serverActor) watching(c messages.FileChange) bool {
	for id, r := range a.regs {
		if r.Method != didChangeWatchedFiles {
			continue
		}
		m, ok := a.matchers[id]
		if !ok {
			var err error
			if m, err = lspglob.NewWatchMatcher(r.RegisterOptions); err != nil {
				a.cfg.Logger.Warn("bad file watcher registration", "server", a.cfg.Server.ID, "err", err)
			}
			a.matchers[id] = m
		}
		path := filepath.ToSlash(c.Path)
		if m != nil && (m.Match(path, c.Type) || c.Dir && c.Type == messages.FileDeleted && m.MatchDir(path)) {
			return true
		}
	}
	return false
}

// maxChangedOnDisk bounds changedOnDisk.
const maxChangedOnDisk = 1024

// noteChangedOnDisk remembers that a source file not open changed on
// disk. The server hears of it (didChangeWatchedFiles) and re-checks the
// open files that depend on it in its own time: with pyright and
// tsserver, after a diagnostics call that opened the changed file had its
// answer, which then named none of the open files the change broke.
// Opening it is therefore a change (openedChanged).
func (a *serverActor) noteChangedOnDisk(uri string) {
	if a.changedOnDisk == nil || len(a.changedOnDisk) >= maxChangedOnDisk {
		a.changedOnDisk = make(map[string]struct{})
	}
	a.changedOnDisk[uri] = struct{}{}
}

// openedChanged reports whether a document just opened changed on disk
// since the server last had it open, and forgets it.
func (a *serverActor) openedChanged(uri string) bool {
	_, ok := a.changedOnDisk[uri]
	delete(a.changedOnDisk, uri)
	return ok
}
