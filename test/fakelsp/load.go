package fakelsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Project loads (--load-file, --load-progress), as rust-analyzer loads a
// Cargo.toml and gopls a go.mod: the fake "loads" the file NAME in its
// working directory (the project root) after initialized and whenever a
// didChangeWatchedFiles names it (it registers no watcher: rust-analyzer
// registers its own once a workspace loaded). Each load logs "Loading
// NAME" (window/logMessage, info); a file that is missing or holds the
// word "broken" fails to load. The failure is said as an error
// window/showMessage, "Failed to load workspace: NAME is broken", or, with
// --load-progress, as a work done progress titled "Error loading
// workspace" begun at the failure and ended at the next load that works,
// as gopls does. The fake's diagnostics do not change with it.

// loadErrorTitle is --load-progress's title, gopls's.
const loadErrorTitle = "Error loading workspace"

// loadErrorToken is the token of --load-progress's work.
const loadErrorToken = "fake-load-error"

// loadProject loads --load-file and says how it went.
func (s *server) loadProject() {
	name := s.cfg.loadFile
	s.notify("window/logMessage", map[string]any{"type": 3, "message": "Loading " + name})
	failure := ""
	data, err := os.ReadFile(name)
	switch {
	case err != nil:
		failure = name + ": " + err.Error()
	case strings.Contains(string(data), "broken"):
		failure = name + " is broken"
	}
	switch {
	case !s.cfg.loadProgress && failure != "":
		s.notify("window/showMessage", map[string]any{"type": 1, "message": "Failed to load workspace: " + failure})
	case !s.cfg.loadProgress:
	case failure != "" && !s.loadFailing:
		s.loadFailing = true
		s.call(s.internalID(), "window/workDoneProgress/create", map[string]any{"token": loadErrorToken}, func(*message) {
			s.notify("$/progress", map[string]any{"token": loadErrorToken,
				"value": map[string]any{"kind": "begin", "title": loadErrorTitle, "message": failure}})
		})
	case failure == "" && s.loadFailing:
		s.loadFailing = false
		s.notify("$/progress", map[string]any{"token": loadErrorToken, "value": map[string]any{"kind": "end", "message": "Done."}})
	}
}

// didChangeWatchedFiles loads the project again when a change names
// --load-file.
func (s *server) didChangeWatchedFiles(params json.RawMessage) {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	if s.cfg.loadFile == "" || json.Unmarshal(params, &p) != nil {
		return
	}
	for _, c := range p.Changes {
		if strings.HasSuffix(c.URI, "/"+filepath.ToSlash(s.cfg.loadFile)) {
			s.loadProject()
			return
		}
	}
}
