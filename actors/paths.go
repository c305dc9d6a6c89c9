package actors

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlsp/agentlsp/messages"
)

// CheckFile resolves a path an agent gave (absolute, or relative to the
// workspace) to a clean absolute path inside workspace, following
// symlinks, and checks that it is an existing regular file. workspace must
// itself be clean, absolute and free of symlinks. The error is a
// *messages.PathError. It reads the file system (a few stats).
func CheckFile(workspace, path string) (string, error) {
	abs, err := InWorkspace(workspace, path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound}
	case err != nil:
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	case fi.IsDir():
		return "", &messages.PathError{Path: path, Kind: messages.ErrIsDirectory}
	}
	return abs, nil
}

// InWorkspace resolves path (absolute, or relative to workspace) and checks
// that it stays inside workspace once ".." and symlinks are resolved. A
// path that does not exist is resolved as far as its existing parent.
func InWorkspace(workspace, path string) (string, error) {
	if path == "" {
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound, Detail: "empty path"}
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workspace, abs)
	}
	abs = filepath.Clean(abs)
	if !within(workspace, abs) {
		return "", &messages.PathError{Path: path, Kind: messages.ErrOutsideWorkspace, Detail: "workspace " + workspace}
	}
	real, err := resolveExisting(abs)
	if err != nil {
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	if !within(workspace, real) {
		return "", &messages.PathError{Path: path, Kind: messages.ErrOutsideWorkspace,
			Detail: "it resolves to " + real + ", outside workspace " + workspace}
	}
	return real, nil
}

// resolveExisting evaluates symlinks in the longest existing prefix of p
// and appends the rest.
func resolveExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether p is dir or below it (both clean and absolute).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
