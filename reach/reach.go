// Package reach answers whether a change to one file can change the
// diagnostics of another, by the package rules of the language: in Go,
// the same package (directory) or a package that imports the changed one,
// transitively, within the module; in Python, the same module or one that
// imports it, transitively, under the project; in TypeScript and
// JavaScript, a file that imports it by a relative path, transitively.
// For other languages it cannot tell.
//
// An Index caches what it read of each file (its imports, by size and
// modification time), so asking again after a few files changed costs one
// stat per source file and a parse of the changed ones. It reads the file
// system: call it from a goroutine of its own, never from an actor's
// Receive. An Index is safe for concurrent use.
package reach

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentlsp/agentlsp/paths"
)

// Verdict is an answer of Reaches.
type Verdict int

// The verdicts.
const (
	Unknown Verdict = iota // the language's rules are not known here
	No
	Yes
)

// maxFiles bounds the source files one project walk reads.
const maxFiles = 20000

// Index caches imports per file.
type Index struct {
	workspace string
	mu        sync.Mutex
	files     map[string]*entry // by absolute path
}

type entry struct {
	stamp   paths.Stamp
	imports []string // import paths (Go), module names (Python), resolved files (TS/JS)
}

// New returns an index of the files under workspace.
func New(workspace string) *Index {
	return &Index{workspace: workspace, files: make(map[string]*entry)}
}

// Reach is the set of files a change to one file can reach.
type Reach struct {
	lang  language
	dirs  map[string]bool // Go, Python: directories (packages) reached
	files map[string]bool // Python, TS/JS: files reached
	// origin is the changed file; depth, for Python and TS/JS, how many
	// imports away from it each file reached is (1: it imports origin).
	origin string
	depth  map[string]int
}

// Reaches reports whether a change to the file from whose Reach r is can
// change the diagnostics of file to.
func (r *Reach) Reaches(to string) Verdict {
	return r.ReachesTarget(TargetOf(to))
}

// Target is a file asked about, its language and directory found once for
// the many reaches asked whether they reach it.
type Target struct {
	path, dir string
	lang      language
}

// TargetOf returns the Target of file to.
func TargetOf(to string) Target {
	t := Target{path: to, lang: langOf(to)}
	if t.lang != nil && t.lang.byDir() {
		t.dir = filepath.Dir(to)
	}
	return t
}

// Known reports whether any Reach can say No for t: false for a file of a
// language whose rules are not known here, which every change may reach.
func (t Target) Known() bool { return t.lang != nil }

// ReachesTarget is Reaches for a file's Target.
func (r *Reach) ReachesTarget(t Target) Verdict {
	switch {
	case r == nil || r.lang == nil || t.lang == nil:
		return Unknown
	case t.lang != r.lang:
		return No // another language's file: no import crosses
	case r.files[t.path] || t.dir != "" && r.dirs[t.dir]:
		return Yes
	}
	return No
}

// From returns the Reach of a change to file: everything it can change.
func (ix *Index) From(file string) *Reach {
	lang := langOf(file)
	if lang == nil {
		return &Reach{}
	}
	root := projectRoot(ix.workspace, file, lang.markers())
	graph := ix.graph(root, lang)
	return lang.reach(file, root, graph)
}

// graph reads the imports of every source file of the language under
// root (at most maxFiles; ignored directories skipped), from the cache
// where the file did not change.
func (ix *Index) graph(root string, lang language) map[string][]string {
	out := make(map[string][]string)
	filter := paths.NewFilter(nil)
	n := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && p != root && (filter.Ignored(d.Name()) || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !lang.source(p):
			return nil
		}
		if n++; n > maxFiles {
			return filepath.SkipAll
		}
		out[p] = ix.imports(p, lang)
		return nil
	})
	return out
}

// imports returns a file's imports, read again only when it changed.
func (ix *Index) imports(p string, lang language) []string {
	stamp := paths.StampOf(p)
	ix.mu.Lock()
	e := ix.files[p]
	ix.mu.Unlock()
	if e != nil && e.stamp.SameFile(stamp) {
		return e.imports
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	imps := lang.parse(p, b)
	ix.mu.Lock()
	ix.files[p] = &entry{stamp: stamp, imports: imps}
	ix.mu.Unlock()
	return imps
}

// projectRoot is the nearest directory above file holding one of markers,
// up to the workspace (the workspace when none does).
func projectRoot(workspace, file string, markers []string) string {
	for dir := filepath.Dir(file); paths.Within(workspace, dir); dir = filepath.Dir(dir) {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == workspace {
			break
		}
	}
	return workspace
}

// language is one language's package rules.
type language interface {
	markers() []string
	source(path string) bool
	parse(path string, src []byte) []string
	reach(file, root string, graph map[string][]string) *Reach
	byDir() bool // the reach is a set of directories (packages)
}

var languages = []language{goLang{}, pyLang{}, tsLang{}}

func langOf(path string) language {
	for _, l := range languages {
		if l.source(path) {
			return l
		}
	}
	return nil
}

// closure returns the nodes that reach start through edges reversed, each
// with its distance from start: a breadth-first walk of who imports whom.
func closure(start string, importers map[string][]string) map[string]int {
	dist := map[string]int{start: 0}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range importers[n] {
			if _, seen := dist[m]; !seen {
				dist[m] = dist[n] + 1
				queue = append(queue, m)
			}
		}
	}
	return dist
}

// Importers returns at most limit of the files r reaches other than the
// changed file, the nearest first (the files that import it, then those
// that import them), by path at one distance: the files a server that
// diagnoses open files only must have open to report what the change
// broke. Nil when the reach is of packages (Go: its servers diagnose
// closed files) or of an unknown language.
func (r *Reach) Importers(limit int) []string {
	if r == nil || len(r.depth) == 0 || limit <= 0 {
		return nil
	}
	out := make([]string, 0, len(r.depth))
	for f := range r.depth {
		if f != r.origin {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.depth[a], r.depth[b]), cmp.Compare(a, b))
	})
	return out[:min(limit, len(out))]
}

// trimExt is a path without its extension.
func trimExt(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) }
