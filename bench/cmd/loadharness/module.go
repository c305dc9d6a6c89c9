package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentlsp/agentlsp"
)

// The real-module workload (--module DIR): a copy of an existing Go module
// (golang.org/x/tools from the module cache, say), so that gopls indexes
// real code. Edits keep their known effect: an odd edit appends a
// declaration that does not type-check to the file's original text, an
// even one restores the original, so an edit's file has errors exactly
// when its number is odd. Navigation asks about the file's first function.

// moduleEdit is the declaration an odd edit appends; the number makes
// every broken text differ from the one before.
const moduleEdit = "\nvar _ int = \"agentlsp edit %d\"\n"

// funcDecl finds a top-level function without a receiver: its name is
// navigation's position.
var funcDecl = regexp.MustCompile(`(?m)^func ([A-Za-z_][A-Za-z0-9_]*)`)

// moduleWorkload copies the module at src into dir and picks files of it
// for the sessions: n files, each in a different package where the module
// has enough, all compiled on this platform (no build constraints, no
// tests, no cgo, no testdata or generated files).
func moduleWorkload(src, dir string, n int) (*workload, error) {
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return nil, fmt.Errorf("--module %s: not a Go module: %w", src, err)
	}
	root := filepath.Join(dir, filepath.Base(src))
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		return nil, fmt.Errorf("--module: copy %s: %w", src, err)
	}
	if err := makeWritable(root); err != nil { // the module cache is read-only
		return nil, err
	}
	cands, err := moduleFiles(root)
	if err != nil {
		return nil, err
	}
	picked := pickSpread(cands, n)
	if len(picked) == 0 {
		return nil, fmt.Errorf("--module %s: no Go file fit for edits (a top-level function, no build constraints)", src)
	}
	var files []*file
	for _, c := range picked {
		f, err := c.file()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return &workload{dir: dir, roots: []string{root}, files: [][]*file{files}}, nil
}

// candidate is a file fit for edits, with navigation's position.
type candidate struct {
	path string
	pos  agentlsp.Position
}

// file is c as a workload file: its text is read once, for the picked
// files only.
func (c candidate) file() (*file, error) {
	orig, err := os.ReadFile(c.path)
	if err != nil {
		return nil, err
	}
	text := string(orig)
	return &file{path: c.path, hover: c.pos, def: c.pos, text: func(n int) string {
		if n%2 == 1 {
			return text + fmt.Sprintf(moduleEdit, n)
		}
		return text
	}}, nil
}

// moduleFiles lists the files of the module at root fit for edits, by
// directory, skipping nested modules.
func moduleFiles(root string) ([]candidate, error) {
	var out []candidate
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.Contains(name, "_") {
			return nil // _test, and _linux, _amd64 and the like: constraints by name
		}
		c, ok, err := moduleFile(path)
		if ok {
			out = append(out, c)
		}
		return err
	})
	return out, err
}

// moduleFile says whether path fits and where its first function's name
// is.
func moduleFile(path string) (candidate, bool, error) {
	orig, err := os.ReadFile(path)
	if err != nil {
		return candidate{}, false, err
	}
	if bytes.Contains(orig, []byte("//go:build")) || bytes.Contains(orig, []byte("Code generated")) || bytes.Contains(orig, []byte(`import "C"`)) {
		return candidate{}, false, nil
	}
	m := funcDecl.FindSubmatchIndex(orig)
	if m == nil {
		return candidate{}, false, nil
	}
	line := bytes.Count(orig[:m[2]], []byte("\n"))
	col := m[2] - (bytes.LastIndexByte(orig[:m[2]], '\n') + 1)
	return candidate{path: path, pos: agentlsp.Position{Line: uint32(line), Character: uint32(col)}}, true, nil
}

// pickSpread picks n files, one per directory round robin, so that the
// sessions edit different packages as long as the module has enough.
func pickSpread(files []candidate, n int) []candidate {
	byDir := map[string][]candidate{}
	var dirs []string
	for _, f := range files {
		d := filepath.Dir(f.path)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], f)
	}
	slices.Sort(dirs)
	var out []candidate
	for round := 0; len(out) < n; round++ {
		added := false
		for _, d := range dirs {
			if round < len(byDir[d]) && len(out) < n {
				out = append(out, byDir[d][round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// makeWritable gives the owner write permission on everything under root.
func makeWritable(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(path, info.Mode().Perm()|0o200)
	})
}
