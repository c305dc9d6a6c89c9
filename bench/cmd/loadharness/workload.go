package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agentlsp/agentlsp"
)

// The workload: a generated workspace of R project roots holding F files,
// the text of every edit, the positions navigation asks about, and which
// files each session works on. Every text is a pure function of (file,
// edit number): odd edit numbers put one error in the file, even ones
// remove it, so an edit's expected diagnostics are known.

// fakeMarker marks a fake project root; fakeExt is the fake's file type.
const (
	fakeMarker = "fakeroot.toml"
	fakeExt    = ".fake"
)

// file is one file of the workload.
type file struct {
	root int    // index of its project root
	path string // absolute
	// text returns the file's content for edit number n (0: pristine).
	text func(n int) string
	// hover and def are navigation positions (LSP, 0-based).
	hover, def agentlsp.Position
}

// workload is the generated workspace. Safe for concurrent use once built.
type workload struct {
	dir   string    // the workspace
	roots []string  // project roots
	files [][]*file // per root
	edits atomic.Int64
}

// nextEdit returns a new edit number, unique in the workload.
func (w *workload) nextEdit() int { return int(w.edits.Add(1)) }

// restore writes every file's pristine text back to disk.
func (w *workload) restore() error {
	for _, fs := range w.files {
		for _, f := range fs {
			if err := os.WriteFile(f.path, []byte(f.text(0)), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// filesOf returns the files session s of n works on: sessions are spread
// over the roots (s mod R), and within a root each session owns a disjoint
// set of files when there are at least as many files as sessions there;
// otherwise sessions share files. exclusive reports which.
func (w *workload) filesOf(s, n int) (fs []*file, exclusive bool) {
	r := s % len(w.roots)
	inRoot := (n - r + len(w.roots) - 1) / len(w.roots) // sessions in root r
	idx := s / len(w.roots)
	all := w.files[r]
	if inRoot > len(all) {
		return []*file{all[idx%len(all)]}, false
	}
	for i := idx; i < len(all); i += inRoot {
		fs = append(fs, all[i])
	}
	return fs, true
}

// fakeWorkload generates R roots, each with a marker and F/R files of the
// given number of lines (at least one file per root).
func fakeWorkload(dir string, roots, files, lines int) (*workload, error) {
	w := &workload{dir: dir}
	per := max(1, files/roots)
	for r := range roots {
		root := filepath.Join(dir, fmt.Sprintf("root%02d", r))
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(root, fakeMarker), nil, 0o644); err != nil {
			return nil, err
		}
		w.roots = append(w.roots, root)
		var fs []*file
		for i := range per {
			f := &file{root: r, path: filepath.Join(root, fmt.Sprintf("f%04d%s", i, fakeExt)), text: fakeText(lines, i)}
			fs = append(fs, f)
		}
		w.files = append(w.files, fs)
	}
	return w, w.restore()
}

// fakeText is a document of n lines whose middle line carries the edit
// number; odd edits put an ERROR: marker there, which the fake reports.
func fakeText(n, id int) func(int) string {
	return func(edit int) string {
		var b strings.Builder
		for i := range max(n, 1) {
			switch {
			case i == n/2 && edit%2 == 1:
				fmt.Fprintf(&b, "value = %d ERROR: broken by edit %d\n", edit, edit)
			case i == n/2:
				fmt.Fprintf(&b, "value = %d\n", edit)
			default:
				fmt.Fprintf(&b, "line %d of file %d, with some ordinary text to make it longer\n", i, id)
			}
		}
		return b.String()
	}
}

// goWorkload generates R Go modules (root r is module example.com/mR) with
// packages/R packages each, files spread over the packages. Package k
// imports package k-1 of its module, so the module has a real import
// graph; every file has a generated function whose first statement the
// edits change, and filler functions to reach about lines lines.
func goWorkload(dir string, roots, packages, files, lines int) (*workload, error) {
	w := &workload{dir: dir}
	pkgs := max(1, packages/roots)
	per := max(1, files/(roots*pkgs))
	for r := range roots {
		root := filepath.Join(dir, fmt.Sprintf("m%02d", r))
		w.roots = append(w.roots, root)
		if err := writeFile(filepath.Join(root, "go.mod"), fmt.Sprintf("module example.com/m%d\n\ngo 1.22\n", r)); err != nil {
			return nil, err
		}
		var fs []*file
		for k := range pkgs {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("p%d", k)), 0o755); err != nil {
				return nil, err
			}
			for i := range per {
				fs = append(fs, goFile(r, root, k, i, lines))
			}
		}
		w.files = append(w.files, fs)
	}
	return w, w.restore()
}

// goFile is file i of package k in module r.
func goFile(r int, root string, k, i, lines int) *file {
	f := &file{root: r, path: filepath.Join(root, fmt.Sprintf("p%d", k), fmt.Sprintf("f%03d.go", i))}
	var head []string
	head = append(head, fmt.Sprintf("package p%d", k), "")
	call := fmt.Sprintf("H%d(x)", k)
	if k > 0 {
		head = append(head, fmt.Sprintf("import \"example.com/m%d/p%d\"", r, k-1), "")
		call += fmt.Sprintf(" + p%d.H%d(x)", k-1, k-1)
	}
	head = append(head, fmt.Sprintf("// F%d_%d is generated function %d of package p%d.", k, i, i, k))
	f.hover = agentlsp.Position{Line: uint32(len(head)), Character: uint32(len("func "))}
	head = append(head, fmt.Sprintf("func F%d_%d(x int) int {", k, i))
	editLine := len(head)
	ret := "\treturn v + " + call
	f.def = agentlsp.Position{Line: uint32(editLine + 1), Character: uint32(len("\treturn v + "))}
	tail := []string{ret, "}", ""}
	if i == 0 {
		tail = append(tail, fmt.Sprintf("// H%d is the helper of package p%d.", k, k), fmt.Sprintf("func H%d(x int) int { return x * 2 }", k), "")
	}
	for m := 0; len(head)+len(tail) < lines; m++ {
		tail = append(tail, fmt.Sprintf("func filler%d_%d(s string) string { return s + %q }", i, m, fmt.Sprint(m)), "")
	}
	f.text = func(n int) string {
		stmt := fmt.Sprintf("\tv := x + %d", n)
		if n%2 == 1 {
			stmt = fmt.Sprintf("\tv := x + \"e%d\"", n)
		}
		return strings.Join(head, "\n") + "\n" + stmt + "\n" + strings.Join(tail, "\n")
	}
	return f
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
