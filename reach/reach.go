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
	"hash/fnv"
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
	files     map[string]*entry   // by absolute path
	derived   map[string]*derived // by project root and language
}

type entry struct {
	stamp   paths.Stamp
	imports []string // import paths (Go), module names (Python), resolved files (TS/JS)
}

// New returns an index of the files under workspace.
func New(workspace string) *Index {
	return &Index{workspace: workspace, files: make(map[string]*entry), derived: make(map[string]*derived)}
}

// Reach is the set of files a change to one file can reach.
type Reach struct {
	lang  language
	dirs  map[string]bool // Go, Python: directories (packages) reached
	files map[string]bool // Python, TS/JS: files reached
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
	return ix.derivedOf(root, lang).reach(file, lang)
}

// derived is what a project's import graph says of who imports whom,
// computed again only when the graph changed (a file's imports, or the
// set of files): the walk that reads the graph is a stat per file, this
// a map entry or more per file and import.
type derived struct {
	sig       uint64              // the signature of the graph it comes from (graph)
	node      func(string) string // a file's node: its package, module, or path without extension
	filesOf   map[string][]string // node -> its files
	importers map[string][]string // node -> the nodes that import it
}

// derivedOf reads root's graph and returns what it says, from the cache
// when the graph is the one it was computed from.
func (ix *Index) derivedOf(root string, lang language) *derived {
	graph, sig := ix.graph(root, lang)
	key := root + "\x00" + lang.markers()[0]
	ix.mu.Lock()
	d := ix.derived[key]
	ix.mu.Unlock()
	if d != nil && d.sig == sig {
		return d
	}
	d = &derived{sig: sig, node: lang.nodes(root), filesOf: make(map[string][]string), importers: make(map[string][]string)}
	for f, imps := range graph {
		from := d.node(f)
		d.filesOf[from] = append(d.filesOf[from], f)
		for _, imp := range lang.edges(d.node, f, imps) {
			d.importers[imp] = append(d.importers[imp], from)
		}
	}
	ix.mu.Lock()
	if len(ix.derived) >= maxDerived {
		clear(ix.derived)
	}
	ix.derived[key] = d
	ix.mu.Unlock()
	return d
}

// maxDerived bounds the projects whose derived graphs are kept.
const maxDerived = 64

// reach is the Reach of a change to file.
func (d *derived) reach(file string, lang language) *Reach {
	reached := closure(d.node(file), d.importers)
	if lang.byDir() {
		r := &Reach{lang: lang, dirs: map[string]bool{filepath.Dir(file): true}}
		for n := range reached {
			for _, f := range d.filesOf[n] {
				r.dirs[filepath.Dir(f)] = true
			}
		}
		return r
	}
	r := &Reach{lang: lang, files: map[string]bool{file: true}}
	for n := range reached {
		for _, f := range d.filesOf[n] {
			r.files[f] = true
		}
	}
	return r
}

// Importers returns at most limit of the files a change to file reaches,
// other than file, the nearest first (the files that import it, then
// those that import them), by path at one distance: the files a server
// that diagnoses open files only must have open to report what the change
// broke. Nil when the reach is of packages (Go: its servers diagnose
// closed files) or of an unknown language. It walks the graph outward
// only as far as it needs.
func (ix *Index) Importers(file string, limit int) []string {
	lang := langOf(file)
	if lang == nil || lang.byDir() || limit <= 0 {
		return nil
	}
	d := ix.derivedOf(projectRoot(ix.workspace, file, lang.markers()), lang)
	start := d.node(file)
	seen := map[string]bool{start: true}
	var out []string
	for level := []string{start}; len(level) > 0 && len(out) < limit; {
		var next, files []string
		for _, n := range level {
			for _, m := range d.importers[n] {
				if !seen[m] {
					seen[m] = true
					next = append(next, m)
					files = append(files, d.filesOf[m]...)
				}
			}
		}
		slices.Sort(files)
		for _, f := range files {
			if f != file {
				out = append(out, f)
			}
		}
		level = next
	}
	return out[:min(limit, len(out))]
}

// graph reads the imports of every source file of the language under
// root (at most maxFiles; ignored directories skipped), from the cache
// where the file did not change, and returns them with their signature:
// a hash of every file's path and imports, in the walk's (lexical) order.
func (ix *Index) graph(root string, lang language) (map[string][]string, uint64) {
	out := make(map[string][]string)
	filter := paths.NewFilter(nil)
	h := fnv.New64a()
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
		imps := ix.imports(p, lang)
		out[p] = imps
		h.Write([]byte(p))
		for _, imp := range imps {
			h.Write([]byte{0})
			h.Write([]byte(imp))
		}
		h.Write([]byte{1})
		return nil
	})
	return out, h.Sum64()
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
	b, err := paths.ReadRegular(p) // a named pipe would block the walk for ever
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
	// nodes returns the function giving a file of root its node: what
	// imports name (a package's import path, a module, a path without
	// extension).
	nodes(root string) func(string) string
	// edges are the nodes a file's imports name.
	edges(node func(string) string, file string, imports []string) []string
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

// closure returns the nodes that reach start through edges reversed: a
// breadth-first walk of who imports whom.
func closure(start string, importers map[string][]string) map[string]bool {
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range importers[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return seen
}

// trimExt is a path without its extension.
func trimExt(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) }
