package paths

import (
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
