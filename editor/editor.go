// Package editor is the editor view of answers: what MCP and the CLI show
// agents and people. Lines and columns are 1-based and columns count
// characters (code points), as editors show them; paths are relative to
// the workspace when inside it.
package editor

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/safetext"
	"github.com/agentlsp/agentlsp/textpos"
)

// Location is a location as an editor shows it.
type Location struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
}

// String renders path:line:column.
//
// A newline in the path is written \n (safetext.EscapeLine): a location
// is one line of a text answer, and a file named "a.go\nforged.go:1:1"
// must not print a location of its own. The path field stays exact.
func (l Location) String() string {
	return fmt.Sprintf("%s:%d:%d", safetext.EscapeLine(l.Path), l.Line, l.Column)
}

// View converts between LSP positions (UTF-16) and the editor view, reading
// each file it needs once. Not safe for concurrent use; make one per
// answer.
type View struct {
	workspace string
	texts     map[string]string
	lines     map[string]*textpos.Lines // of texts, indexed when converted
	cache     *Texts
}

// New returns a converter for one answer over workspace (absolute and
// clean), reading files through cache (nil: none).
func New(workspace string, cache *Texts) *View {
	return &View{workspace: workspace, texts: make(map[string]string), lines: make(map[string]*textpos.Lines), cache: cache}
}

// Rel returns path relative to the workspace, or path itself outside it.
func (e *View) Rel(path string) string {
	path = paths.Given(path)
	rel, err := filepath.Rel(e.workspace, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return filepath.ToSlash(rel)
}

// SetText gives the converter the text of a file as the servers have it
// (after an Edit, which does not write to disk); otherwise files are read
// from disk.
func (e *View) SetText(path, text string) {
	path = e.key(path)
	e.texts[path] = text
	delete(e.lines, path)
}

// key is path absolute and clean: the view's maps and the cache know a
// file by it, however the caller named it.
func (e *View) key(path string) string {
	path = paths.Given(path) // a file:// URI names its path
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.workspace, path)
	}
	return filepath.Clean(path)
}

// Text returns the text of a file inside the workspace as the editor view
// sees it (SetText's, else the disk's, read once).
func (e *View) Text(path string) (string, error) {
	k := e.key(path)
	if t, ok := e.texts[k]; ok {
		return t, nil
	}
	l, err := e.read(path)
	if err != nil {
		return "", err
	}
	e.texts[k], e.lines[k] = l.Text(), l
	return l.Text(), nil
}

// linesOf returns the text of Text with its lines indexed: a file read from
// disk comes indexed from the cache, once per version of the file.
func (e *View) linesOf(path string) (*textpos.Lines, error) {
	k := e.key(path)
	if l := e.lines[k]; l != nil {
		return l, nil
	}
	text, err := e.Text(path)
	if err != nil {
		return nil, err
	}
	l := e.lines[k]
	if l == nil {
		l = textpos.NewLines(text)
		e.lines[k] = l
	}
	return l, nil
}

// read reads a file through the cache: a path lexically inside the
// workspace whose file has not changed since it was read is not read, nor
// resolved, again; any other is checked as a request would check it.
func (e *View) read(path string) (*textpos.Lines, error) {
	key := e.key(path)
	if !paths.Within(e.workspace, key) {
		key = ""
	}
	if l, ok := e.cache.get(key); ok {
		return l, nil
	}
	abs, err := paths.CheckFile(e.workspace, path)
	if err != nil {
		return nil, err
	}
	text, stamp, err := paths.ReadText(abs, path)
	if err != nil {
		return nil, err
	}
	return e.cache.put(key, text, stamp), nil
}

// Position converts a 1-based editor line and column of a file to an LSP
// position. With a symbol, the column is that of the symbol's first
// whole-word occurrence on the line (column is then ignored). Positions
// past the end of the line or file are errors that say so.
func (e *View) Position(path string, line1, col1 int, symbol string) (messages.Position, error) {
	lines, err := e.linesOf(path)
	if err != nil {
		return messages.Position{}, err
	}
	if symbol != "" {
		line, err := lines.EditorLine(line1 - 1)
		if line1 < 1 || err != nil {
			return messages.Position{}, fmt.Errorf("agentlsp: %s: line %d: %w", e.Rel(path), line1, errOr(err, textpos.ErrNegative))
		}
		col, err := textpos.SymbolColumn(line, symbol)
		if err != nil {
			return messages.Position{}, fmt.Errorf("agentlsp: %s:%d: %w", e.Rel(path), line1, err)
		}
		col1 = col + 1
	}
	l, c, err := lines.FromEditor(line1, col1, textpos.UTF16)
	if err != nil {
		return messages.Position{}, fmt.Errorf("agentlsp: %s: %w", e.Rel(path), err)
	}
	return messages.Position{Line: uint32(l), Character: uint32(c)}, nil
}

func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// Location converts an LSP location to the editor view. A file that cannot
// be read keeps its UTF-16 columns (+1).
func (e *View) Location(path string, r messages.Range) Location {
	out := Location{Path: e.Rel(path)}
	out.Line, out.Column = e.point(path, r.Start)
	out.EndLine, out.EndColumn = e.point(path, r.End)
	return out
}

// LocationOf converts a range in a file (path) or, for a URI of another
// scheme (path ""), keeps the URI as path and the positions +1.
func (e *View) LocationOf(uri, path string, r messages.Range) Location {
	if path == "" {
		return Location{Path: uri, Line: int(r.Start.Line) + 1, Column: int(r.Start.Character) + 1,
			EndLine: int(r.End.Line) + 1, EndColumn: int(r.End.Character) + 1}
	}
	return e.Location(path, r)
}

func (e *View) point(path string, p messages.Position) (int, int) {
	lines, err := e.linesOf(path)
	if err != nil {
		return int(p.Line) + 1, int(p.Character) + 1
	}
	if l, c, err := lines.ToEditor(int(p.Line), int(p.Character), textpos.UTF16); err == nil {
		return l, c
	}
	return int(p.Line) + 1, int(p.Character) + 1
}

// editorDiagnostic returns d with its range in editor columns (0-based
// characters), for the dedup renderers that add one.
func (e *View) editorDiagnostic(path string, d messages.Diagnostic) messages.Diagnostic {
	conv := func(p messages.Position) messages.Position {
		l, c := e.point(path, p)
		return messages.Position{Line: uint32(l - 1), Character: uint32(c - 1)}
	}
	d.Range.Start, d.Range.End = conv(d.Range.Start), conv(d.Range.End)
	return d
}

// FileDiagnostics converts a report's diagnostics to editor columns.
func (e *View) FileDiagnostics(f messages.FileReport) []messages.Diagnostic {
	path := f.Path
	if path == "" {
		path = paths.FromURI(f.URI)
	}
	out := make([]messages.Diagnostic, len(f.Diagnostics))
	for i, d := range f.Diagnostics {
		out[i] = e.editorDiagnostic(path, d)
	}
	return out
}

// Render writes reports in the model format:
//
//	<diagnostics file="pkg/a.go" status="fresh">
//	ERROR [12:5] undefined: foo (compiler/UndeclaredName)
//	... and 3 more
//	</diagnostics>
//
// then, when the answer left out other files with new errors (MoreFiles),
// the line that names them (dedup.MoreFilesNote).
func (e *View) Render(w io.Writer, files []messages.FileReport) error {
	for _, f := range files {
		path := f.Path
		if path == "" {
			path = paths.FromURI(f.URI)
		}
		if err := dedup.Render(w, e.Rel(path), string(f.Status), e.FileDiagnostics(f), f.More); err != nil {
			return err
		}
	}
	if note := e.MoreFilesNote(files); note != "" {
		_, err := io.WriteString(w, note+"\n")
		return err
	}
	return nil
}

// MoreFiles returns the other files with new errors that an answer left
// out (dedup.MoreFiles), as paths relative to the workspace.
func (e *View) MoreFiles(files []messages.FileReport) []string {
	uris := dedup.MoreFiles(files)
	out := make([]string, len(uris))
	for i, u := range uris {
		out[i] = e.Rel(paths.FromURI(u))
	}
	return out
}

// MoreFilesNote is the line, without its newline, that names the other
// files an answer left out (dedup.MoreFilesNote); "" when there are none.
func (e *View) MoreFilesNote(files []messages.FileReport) string {
	return dedup.MoreFilesNote(e.MoreFiles(files))
}

// Lines renders reports like a linter: path:line:col: severity: message [source/code].
func (e *View) Lines(files []messages.FileReport) []string {
	var out []string
	for _, f := range files {
		path := f.Path
		if path == "" {
			path = paths.FromURI(f.URI)
		}
		for _, d := range e.FileDiagnostics(f) {
			out = append(out, dedup.FormatLine(e.Rel(path), d))
		}
	}
	return out
}
