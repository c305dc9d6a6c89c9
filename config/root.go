package config

import (
	"os"
	"path/filepath"
	"strings"
)

// FindRoot returns the project root of file for s, and false when s must
// not serve file. Both paths should be absolute and clean; workspace is the
// boundary of the search, which walks up from file's directory to the
// workspace, inclusive, and never above it:
//
//   - a directory on the way that holds one of ExcludeMarkers means the
//     file is not served (a Deno project for typescript-language-server);
//   - the nearest directory holding one of RootMarkers is the root, except
//     that with RootMarkerPriority the nearest directory holding the first
//     marker, anywhere on the way, wins over nearer ones holding others;
//   - with no marker on the way, the root is the workspace;
//   - Root, when set, is the root whatever the markers (exclusion still
//     applies).
//
// A file outside the workspace is not served. Markers may be
// filepath.Match patterns ("*.csproj"). FindRoot blocks on the file system;
// it is safe for concurrent use.
func (s *Server) FindRoot(workspace, file string) (root string, ok bool) {
	ws, file := filepath.Clean(workspace), filepath.Clean(file)
	dir := filepath.Dir(file)
	if file == ws {
		dir = ws
	}
	if !within(ws, dir) {
		return "", false
	}
	var nearest, first string
	for d := dir; ; d = filepath.Dir(d) {
		if holdsAny(d, s.ExcludeMarkers) {
			return "", false
		}
		if nearest == "" && holdsAny(d, s.RootMarkers) {
			nearest = d
		}
		if s.RootMarkerPriority && first == "" && len(s.RootMarkers) > 0 && holds(d, s.RootMarkers[0]) {
			first = d
		}
		if d == ws || filepath.Dir(d) == d {
			break
		}
	}
	switch {
	case s.Root != "":
		return filepath.Join(ws, s.Root), true
	case first != "":
		return first, true
	case nearest != "":
		return nearest, true
	}
	return ws, true
}

// within reports whether dir is ws or inside it.
func within(ws, dir string) bool {
	rel, err := filepath.Rel(ws, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func holdsAny(dir string, markers []string) bool {
	for _, m := range markers {
		if holds(dir, m) {
			return true
		}
	}
	return false
}

// holds reports whether dir holds an entry (file or directory) named
// marker, or matching it when it is a pattern.
func holds(dir, marker string) bool {
	if !strings.ContainsAny(marker, `*?[\`) {
		_, err := os.Stat(filepath.Join(dir, marker))
		return err == nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if ok, _ := filepath.Match(marker, e.Name()); ok {
			return true
		}
	}
	return false
}
