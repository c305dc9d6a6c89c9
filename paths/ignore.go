package paths

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultIgnoredDirs are the directory names nobody watches nor searches
// for root markers; names starting with "bazel-" are ignored too.
// Read-only.
var DefaultIgnoredDirs = []string{".git", ".hg", ".svn", "node_modules", "vendor", ".venv", "venv",
	"__pycache__", ".mypy_cache", ".pytest_cache", "target", "dist", "build", "out", ".next", ".cache"}

// Filter holds ignored directory names. Never changed once built, so it
// is safe for concurrent use.
type Filter map[string]bool

// NewFilter returns the default ignored names plus extra.
func NewFilter(extra []string) Filter {
	f := make(Filter)
	for _, n := range slices.Concat(DefaultIgnoredDirs, extra) {
		f[n] = true
	}
	return f
}

// Ignored reports whether a directory called name is ignored.
func (f Filter) Ignored(name string) bool { return f[name] || strings.HasPrefix(name, "bazel-") }

// Visible reports whether a change to path is worth reporting: it lies
// below workspace ('/'-separated), under no ignored directory, and is not
// one itself (when known to be a directory).
func (f Filter) Visible(workspace, path string, dir bool) bool {
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(workspace, "/")+"/")
	if !ok || rest == "" {
		return false
	}
	parts := strings.Split(rest, "/")
	if !dir {
		parts = parts[:len(parts)-1]
	}
	return !slices.ContainsFunc(parts, f.Ignored)
}

// Unwatched returns the directory, below workspace, that the watcher does
// not look into and that holds path: the first with an ignored name that is
// not a package of sources (SourcePackage); "" when path is outside the
// workspace or watched. A change made there reaches no server unless a
// call names the file.
func (f Filter) Unwatched(workspace, path string) string {
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(workspace, "/")+"/")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	dir := strings.TrimSuffix(workspace, "/")
	for _, p := range parts[:len(parts)-1] {
		dir += "/" + p
		if f.Ignored(p) && !SourcePackage(dir) {
			return dir
		}
	}
	return ""
}

// packageDirNames are the ignored names that build tools give their
// output and programs give packages as well: an internal/build Go package,
// go-ethereum's build/ci.go, a Python package named build. The go command
// builds them like any other directory (it leaves out only vendor,
// testdata and names starting with '.' or '_'), and Python imports them,
// so gopls and pyright read them.
var packageDirNames = map[string]bool{"build": true, "out": true, "dist": true, "target": true}

// maxPackageDirEntries bounds the entries SourcePackage reads: an output
// directory can be large, and a package's source files are as likely among
// its first entries as anywhere (the order is the file system's).
const maxPackageDirEntries = 512

// SourcePackage reports whether dir, a directory with an ignored name, is
// a package of sources rather than a build's output: its name is one
// packages use too (build, out, dist, target) and it holds a .go or .py
// file among its first entries (a build's output holds compiled files, and
// setuptools' build/ holds its copies below lib/). Such a directory is
// watched like any other: its servers read it, and a change there must
// reach them.
func SourcePackage(dir string) bool {
	if !PackageDirName(filepath.Base(dir)) {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxPackageDirEntries)
	return slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return e.Type().IsRegular() && SourceFile(e.Name())
	})
}

// PackageDirName reports whether an ignored directory called name may be
// a package of sources (SourcePackage) rather than a build's output.
func PackageDirName(name string) bool { return packageDirNames[name] }

// SourceFile reports whether a file's name makes its directory a package
// of sources (SourcePackage): a Go or Python file.
func SourceFile(name string) bool {
	ext := filepath.Ext(name)
	return ext == ".go" || ext == ".py"
}
