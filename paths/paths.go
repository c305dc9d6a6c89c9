// Package paths is how agentlsp names files: file:// URIs (URI, FromURI,
// Normalize), the workspace confinement of the paths agents give
// (InWorkspace, CheckFile), reading them as text (ReadText) and the disk
// stamp that says whether a file changed (StampOf), and the directory names
// nobody watches (Filter).
//
// It is a leaf of the import graph (the standard library and messages), has
// no goroutines and no state: every function is safe for concurrent use.
// Only InWorkspace, CheckFile, ReadText and StampOf touch the file system;
// each does work linear in the length of the path it is given, and a path
// longer than MaxPath is refused before any of it.
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlsp/agentlsp/messages"
)

// MaxPath is the longest path accepted, in bytes: Linux's PATH_MAX.
const MaxPath = 4096

// maxLinks bounds the symbolic links followed while resolving one path.
const maxLinks = 255

// lstat is os.Lstat; tests count the calls.
var lstat = os.Lstat

// CheckFile resolves a path an agent gave (absolute, or relative to the
// workspace) to a clean absolute path inside workspace, following
// symlinks, and checks that it is an existing regular file. workspace must
// itself be clean, absolute and free of symlinks. The error is a
// *messages.PathError.
func CheckFile(workspace, path string) (string, error) {
	abs, err := InWorkspace(workspace, path)
	if err != nil {
		return "", err
	}
	return CheckResolved(path, abs)
}

// CheckResolved is CheckFile's check of abs, path resolved by InWorkspace:
// a regular file that exists (errors name path).
func CheckResolved(path, abs string) (string, error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound}
	case err != nil:
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	case fi.IsDir():
		return "", &messages.PathError{Path: path, Kind: messages.ErrIsDirectory}
	case !fi.Mode().IsRegular():
		return "", notRegular(path, fi.Mode())
	}
	return abs, nil
}

// notRegular is the error of a file that is neither a directory nor a
// regular file: a named pipe, a socket, a device. Opening one to read it
// can block for ever (a pipe nobody writes to).
func notRegular(path string, mode fs.FileMode) error {
	what := "a special file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	}
	return &messages.PathError{Path: path, Kind: messages.ErrNotText, Detail: what + ", not a regular file"}
}

// InWorkspace resolves path (absolute, or relative to workspace) and checks
// that it stays inside workspace once ".." and symlinks are resolved. A
// path that does not exist is resolved as far as its existing parent. An
// absolute path spelled through a symlink to the workspace is inside it.
//
// A file:// URI names its path: agents that speak LSP pass one, which was
// taken for a relative path and answered "file does not exist".
func InWorkspace(workspace, path string) (string, error) {
	if err := checkSyntax(path); err != nil {
		return "", err
	}
	abs, err := fromGiven(path)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workspace, abs)
	}
	abs = filepath.Clean(abs)
	start := ""
	if Within(workspace, abs) {
		start = workspace // resolved already: no need to walk it again
	}
	real, err := resolve(abs, start)
	if err != nil {
		return "", &messages.PathError{Path: path, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	if !Within(workspace, real) {
		detail := "workspace " + workspace
		if real != abs {
			detail = "it resolves to " + real + ", outside workspace " + workspace
		}
		return "", &messages.PathError{Path: path, Kind: messages.ErrOutsideWorkspace, Detail: detail}
	}
	return real, nil
}

// checkSyntax refuses what no file system holds: nothing, a NUL byte, a
// path longer than MaxPath.
func checkSyntax(path string) error {
	switch {
	case path == "":
		return &messages.PathError{Path: path, Kind: messages.ErrInvalidPath, Detail: "empty path"}
	case len(path) > MaxPath:
		return &messages.PathError{Path: clip(path), Kind: messages.ErrInvalidPath,
			Detail: fmt.Sprintf("%d bytes, longer than the limit of %d", len(path), MaxPath)}
	case strings.IndexByte(path, 0) >= 0:
		return &messages.PathError{Path: clip(path), Kind: messages.ErrInvalidPath, Detail: "it holds a NUL byte"}
	}
	return nil
}

// fromGiven is the path a caller gave, or the path of the file:// URI it
// gave (a relative path never begins so: it would name a directory
// "file:" with an empty name below it).
func fromGiven(path string) (string, error) {
	if !isFileURI(path) {
		return path, nil
	}
	p := FromURI(path)
	if p == "" || !filepath.IsAbs(p) {
		return "", &messages.PathError{Path: clip(path), Kind: messages.ErrInvalidPath,
			Detail: "a file:// URI whose path cannot be read; give a path relative to the workspace"}
	}
	return p, nil
}

// Given is the path a caller gave as InWorkspace reads it: the path of a
// file:// URI, else path itself (a malformed URI too, which InWorkspace
// refuses).
func Given(path string) string {
	if p := FromURI(path); isFileURI(path) && filepath.IsAbs(p) {
		return p
	}
	return path
}

func isFileURI(path string) bool {
	return len(path) >= len("file://") && strings.EqualFold(path[:len("file://")], "file://")
}

// clip shortens a path quoted in an error.
func clip(p string) string {
	if len(p) <= 200 {
		return p
	}
	return p[:100] + "..." + p[len(p)-100:]
}

// resolve returns abs (clean, absolute) with every symlink in its longest
// existing prefix resolved, the rest appended. It walks the path once,
// component by component, from start (a resolved prefix of abs, or "" for
// the root): one Lstat per component plus the components of the links it
// follows, at most maxLinks of them.
func resolve(abs, start string) (string, error) {
	cur := start
	if cur == "" {
		cur = filepath.VolumeName(abs) + string(filepath.Separator)
	}
	rest := strings.TrimPrefix(abs, cur)
	todo := pushComponents(nil, rest) // a stack: the next component last
	links := 0
	for len(todo) > 0 {
		comp := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch comp {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		fi, err := lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return joinRest(next, todo), nil
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(filepath.Separator)
			target = strings.TrimPrefix(target, cur)
		}
		todo = pushComponents(todo, target)
	}
	return cur, nil
}

// pushComponents pushes the components of p on the stack so that the
// first one is on top.
func pushComponents(stack []string, p string) []string {
	parts := strings.Split(p, string(filepath.Separator))
	for i := len(parts) - 1; i >= 0; i-- {
		stack = append(stack, parts[i])
	}
	return stack
}

// joinRest appends the components left on the stack to p.
func joinRest(p string, stack []string) string {
	parts := make([]string, 0, len(stack)+1)
	parts = append(parts, p)
	for i := len(stack) - 1; i >= 0; i-- {
		parts = append(parts, stack[i])
	}
	return filepath.Join(parts...)
}

// Within reports whether p is dir or below it (both clean and absolute).
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// Rel returns p relative to dir with '/' separators when p is inside dir,
// and p unchanged otherwise.
func Rel(dir, p string) string {
	if !Within(dir, p) {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// Workspace resolves a workspace directory: absolute, clean, symlinks
// resolved, and a directory.
func Workspace(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("agentlsp: no workspace given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("agentlsp: workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("agentlsp: workspace %s: %w", dir, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("agentlsp: workspace %s is not a directory", dir)
	}
	return real, nil
}
