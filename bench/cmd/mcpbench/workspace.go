package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentlsp/agentlsp/bench/gomod"
)

// The workspace: a generated Go module, or an existing directory, copied
// once per client so that a file one client writes is never seen by the
// other's server (both copies hold the same content), and the target: the
// positions every operation asks about and the edit that breaks a call.

// loc is an editor position: a path relative to the workspace, 1-based
// line and column (in characters).
type loc struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (l loc) String() string { return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column) }

// parseLoc parses FILE:LINE:COL.
func parseLoc(s string) (loc, error) {
	i := strings.LastIndexByte(s, ':')
	j := strings.LastIndexByte(s[:max(i, 0)], ':')
	if i < 0 || j < 0 {
		return loc{}, fmt.Errorf("%w: %q: want FILE:LINE:COL", ErrTarget, s)
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return loc{}, fmt.Errorf("%w: %q: want FILE:LINE:COL, 1-based", ErrTarget, s)
	}
	return loc{Path: filepath.ToSlash(filepath.Clean(s[:j])), Line: line, Column: col}, nil
}

// target is what the operations ask about.
type target struct {
	// Call is a call site, at the called name: goToDefinition,
	// findReferences, hover and the call hierarchy ask about it;
	// documentSymbol asks for its file.
	Call loc `json:"call"`
	// Impl is an interface name, for goToImplementation.
	Impl loc `json:"impl"`
	// Query is the workspaceSymbol query.
	Query string `json:"query"`
	// Def is where the called function is declared: the right answer of
	// goToDefinition. Unknown (zero) for an existing workspace without
	// --def: then the raw server's first answer is taken as right.
	Def loc `json:"def"`
	// Name is the called name (its length is what an edit renames).
	Name string `json:"name"`
}

// generate writes the generated Go module of n .go files (package
// bench/gomod) to dir and returns its target.
func generate(dir string, n int) (target, error) {
	t, err := gomod.Generate(dir, n)
	return target{Call: loc(t.Call), Impl: loc(t.Impl), Query: t.Query, Def: loc(t.Def), Name: t.Name}, err
}

// copyTree copies the directory src into dst, skipping version control,
// node_modules and vendor directories; symlinks are skipped too.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && rel != "." && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "vendor"):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// brokenText returns text with the name at l (1-based line and column in
// characters) renamed, which breaks every use of it.
func brokenText(text string, l loc, name string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if l.Line > len(lines) {
		return "", fmt.Errorf("%w: %s: the file has %d lines", ErrTarget, l, len(lines))
	}
	line := []rune(lines[l.Line-1])
	c := l.Column - 1
	if c+len([]rune(name)) > len(line) || string(line[c:c+len([]rune(name))]) != name {
		return "", fmt.Errorf("%w: %s does not hold %q", ErrTarget, l, name)
	}
	lines[l.Line-1] = string(line[:c]) + name + "Broken" + string(line[c+len([]rune(name)):])
	return strings.Join(lines, ""), nil
}

// identAt returns the identifier at l in text.
func identAt(text string, l loc) string {
	lines := strings.Split(text, "\n")
	if l.Line > len(lines) {
		return ""
	}
	line := []rune(lines[l.Line-1])
	isIdent := func(r rune) bool {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
	}
	s := min(l.Column-1, len(line))
	for s > 0 && isIdent(line[s-1]) {
		s--
	}
	e := s
	for e < len(line) && isIdent(line[e]) {
		e++
	}
	return string(line[s:e])
}

// utf16Col converts a 1-based column in characters on a line to a 0-based
// LSP character offset in UTF-16 code units, and back.
func utf16Col(line string, col int) int {
	n := 0
	for i, r := range []rune(line) {
		if i >= col-1 {
			break
		}
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// charCol converts a 0-based UTF-16 offset on a line to a 1-based column
// in characters.
func charCol(line string, u16 int) int {
	n, col := 0, 1
	for _, r := range line {
		if n >= u16 {
			break
		}
		n++
		if r >= 0x10000 {
			n++
		}
		col++
	}
	return col
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
