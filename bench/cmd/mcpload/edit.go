package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Edits: each (client, worker) pair owns, in each language, a file it
// edits and asks about (own), and a pair of files (dep) of which it edits
// one, the dependency, and asks about the other, its user. Only that
// worker writes them, one write at a time, so what is on disk is always
// known. Versions alternate between broken (odd) and clean (even):
//
//   - own: odd versions use an undefined name, undefinedV<version>, at a
//     line that moves with the version; a fresh answer that describes any
//     other version shows the wrong name, the wrong line, or an error
//     where there is none;
//   - dep: odd versions rename the function the user calls, so the user
//     file, unchanged on disk, has an error on a known line; even
//     versions restore it. This is the freshness contract's dependent
//     case: the answer must reflect a change to a file it was not asked
//     about.

// The languages.
const (
	langGo = "go"
	langPy = "py"
)

// The kinds of edit.
const (
	editOwn = "edit"
	editDep = "edit-dependency"
)

// editFile is what one worker edits and asks about.
type editFile struct {
	lang, kind string
	path       string // written, relative to the workspace, slash-separated
	asked      string // asked about: path itself, or the dependency's user
	client     int
	worker     int
}

// editFileFor names the files of (client, worker) in lang.
func editFileFor(lang, kind string, client, worker int) editFile {
	f := editFile{lang: lang, kind: kind, client: client, worker: worker}
	switch {
	case lang == langGo && kind == editOwn:
		f.path = fmt.Sprintf("go/edits/c%dw%d/edit.go", client, worker)
	case lang == langGo:
		f.path = fmt.Sprintf("go/edits/c%dw%d/dep.go", client, worker)
		f.asked = fmt.Sprintf("go/edits/c%dw%d/use.go", client, worker)
	case kind == editOwn:
		f.path = fmt.Sprintf("py/edits/c%d_w%d.py", client, worker)
	default:
		f.path = fmt.Sprintf("py/edits/c%d_w%d_dep.py", client, worker)
		f.asked = fmt.Sprintf("py/edits/c%d_w%d_use.py", client, worker)
	}
	if f.asked == "" {
		f.asked = f.path
	}
	return f
}

// key names the call in the report.
func (f editFile) key() string { return f.lang + "/" + f.kind + "+diagnostics" }

// expect is what the asked file's diagnostics are after a version is
// written: an error on Line whose message holds Match, or (Match == "")
// no error.
type expect struct {
	Version int    `json:"version"`
	Line    int    `json:"line,omitempty"`
	Match   string `json:"match,omitempty"`
	desc    string
}

func (e expect) String() string { return e.desc }

// pad is the number of filler lines before the function in version v of
// an own file, so that the error's line moves from one broken version to
// the next.
func pad(v int) int { return (v / 2) % 4 }

// expectOf is what version v of f gives.
func (f editFile) expectOf(v int) expect {
	e := expect{Version: v, desc: fmt.Sprintf("%s version %d, clean (no error)", f.path, v)}
	if v%2 == 0 {
		if f.kind == editDep {
			e.desc = fmt.Sprintf("%s version %d defines what %s uses (no error)", f.path, v, f.asked)
		}
		return e
	}
	switch {
	case f.kind == editOwn:
		e.Match = fmt.Sprintf("undefinedV%d", v)
		e.Line = 6 + pad(v) // Go: header 3 lines, pad, doc comment, func, return
		if f.lang == langPy {
			e.Line = 4 + pad(v) // Python: docstring, pad, blank, def, return
		}
		e.desc = fmt.Sprintf("%s version %d, undefined name %s on line %d", f.path, v, e.Match, e.Line)
		return e
	case f.lang == langGo:
		e.Match, e.Line = "undefined: Dep", 5
	default:
		e.Match, e.Line = `"dep" is unknown import symbol`, 2
	}
	e.desc = fmt.Sprintf("%s version %d renames what %s uses: %q on its line %d", f.path, v, f.asked, e.Match, e.Line)
	return e
}

// text is version v of the written file.
func (f editFile) text(v int) string {
	if f.kind == editDep {
		return f.depText(v)
	}
	value := fmt.Sprint(v)
	if v%2 == 1 {
		value = fmt.Sprintf("undefinedV%d", v)
	}
	fill := strings.Repeat("# pad\n", pad(v))
	if f.lang == langPy {
		return fmt.Sprintf("\"\"\"Written by client %d, worker %d (version %d).\"\"\"\n%s\ndef value() -> int:\n    return %s\n",
			f.client, f.worker, v, fill, value)
	}
	fill = strings.ReplaceAll(fill, "#", "//")
	return fmt.Sprintf("// Package c%dw%d is written by client %d, worker %d (version %d).\npackage c%dw%d\n\n%s// Value is what this version returns.\nfunc Value() int {\n\treturn %s\n}\n",
		f.client, f.worker, f.client, f.worker, v, f.client, f.worker, fill, value)
}

// depText is version v of a dependency: it defines Dep (dep), renamed in
// odd versions.
func (f editFile) depText(v int) string {
	if f.lang == langPy {
		name := "dep"
		if v%2 == 1 {
			name = fmt.Sprintf("dep_broken_v%d", v)
		}
		return fmt.Sprintf("\"\"\"Version %d.\"\"\"\n\n\ndef %s() -> int:\n    return %d\n", v, name, v)
	}
	name := "Dep"
	if v%2 == 1 {
		name = fmt.Sprintf("DepBrokenV%d", v)
	}
	return fmt.Sprintf("package c%dw%d\n\n// %s is version %d.\nfunc %s() int { return %d }\n", f.client, f.worker, name, v, name, v)
}

// userText is the dependency's user, never rewritten: the call (Go) or
// the import (Python) is on the line expectOf names.
func (f editFile) userText() string {
	if f.lang == langPy {
		return fmt.Sprintf("\"\"\"Uses its dependency.\"\"\"\nfrom edits.c%d_w%d_dep import dep\n\n\ndef use() -> int:\n    return dep()\n", f.client, f.worker)
	}
	return fmt.Sprintf("package c%dw%d\n\n// Use calls Dep.\nfunc Use() int {\n\treturn Dep()\n}\n", f.client, f.worker)
}

// diagAnswer is the diagnostics tool's structured answer, in part (see
// mcp/diagnostics.go).
type diagAnswer struct {
	Files []diagFile `json:"files"`
}

type diagFile struct {
	Path string `json:"path"`
	// Other marks a file the call did not name, reported because its
	// diagnostics changed (newer agentlsp versions).
	Other       bool     `json:"other,omitempty"`
	ChangedBy   []string `json:"changedBy,omitempty"`
	Status      string   `json:"status"`
	Detail      string   `json:"detail,omitempty"`
	Diagnostics []struct {
		Severity string `json:"severity"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Message  string `json:"message"`
	} `json:"diagnostics"`
}

// otherFiles counts the files of diagnostics answers the calls did not
// name: those whose errors the answer says only the named file's change
// could have made (no changedBy), split by whether the asking worker
// writes them (it may have broken them) or another does (it cannot have:
// another agent's breakage presented as the caller's); and those it
// names other changes for.
// Workers of one client share its agentlsp session, which cannot tell
// them apart: another worker of the same client is counted apart.
type otherFiles struct {
	Own         int `json:"unattributed_own"`
	SameSession int `json:"unattributed_same_session"`
	Others      int `json:"unattributed_other_sessions"`
	Attributed  int `json:"with_changes_named"`
}

func (o *otherFiles) add(p otherFiles) {
	o.Own += p.Own
	o.SameSession += p.SameSession
	o.Others += p.Others
	o.Attributed += p.Attributed
}

// otherFilesOf counts an answer's other files.
func (w *worker) otherFilesOf(a diagAnswer) otherFiles {
	var n otherFiles
	for _, f := range a.Files {
		switch {
		case !f.Other:
		case len(f.ChangedBy) > 0:
			n.Attributed++
		case w.writes(f.Path):
			n.Own++
		case clientOf(f.Path) == w.c.id:
			n.SameSession++
		default:
			n.Others++
		}
	}
	return n
}

// clientOf is the client whose worker writes the file at path, -1 if
// none does (editFileFor's names: go/edits/cCwW/..., py/edits/cC_wW...).
func clientOf(path string) int {
	var c, w int
	base := strings.TrimPrefix(strings.TrimPrefix(path, "go/edits/"), "py/edits/")
	if _, err := fmt.Sscanf(base, "c%dw%d", &c, &w); err == nil {
		return c
	}
	if _, err := fmt.Sscanf(base, "c%d_w%d", &c, &w); err == nil {
		return c
	}
	return -1
}

// writes reports whether the file at path (relative, slash-separated) is
// one the worker writes or asks about: only its own writes change them
// (editFileFor).
func (w *worker) writes(path string) bool {
	for _, f := range w.edits {
		if path == f.path || path == f.asked {
			return true
		}
	}
	return false
}

// errorsOf renders the file's errors as "line: message" strings.
func (f diagFile) errorsOf() []string {
	var out []string
	for _, d := range f.Diagnostics {
		if d.Severity == "error" {
			out = append(out, fmt.Sprintf("%d: %s", d.Line, d.Message))
		}
	}
	return out
}

// mismatch returns why a fresh answer does not describe e, or "".
func (f diagFile) mismatch(e expect) string {
	errs := f.errorsOf()
	if e.Match == "" {
		if len(errs) > 0 {
			return fmt.Sprintf("errors %q where the file is clean", errs)
		}
		return ""
	}
	found := false
	for _, d := range f.Diagnostics {
		if d.Severity != "error" {
			continue
		}
		if d.Line != e.Line || !strings.Contains(d.Message, e.Match) {
			return fmt.Sprintf("errors %q, want only %q on line %d", errs, e.Match, e.Line)
		}
		found = true
	}
	if !found {
		return fmt.Sprintf("no error (errors %q), want %q on line %d", errs, e.Match, e.Line)
	}
	return ""
}

// edit writes the next version of f, waits the edit delay, calls the
// diagnostics tool on f and checks the answer against what was written.
// The latency runs from the write to the answer.
func (w *worker) edit(ctx context.Context, f editFile) result {
	v := w.versions[f.key()] + 1
	w.versions[f.key()] = v
	e := f.expectOf(v)
	r := result{key: f.key(), file: f.asked, onDisk: e.String()}
	start := time.Now()
	if err := writeFile(filepath.Join(w.c.ws, filepath.FromSlash(f.path)), f.text(v)); err != nil {
		return r.with(outcomeUnanswered, fmt.Sprintf("write: %v", err))
	}
	if err := sleep(ctx, w.c.o.editDelay); err != nil {
		return r.with(outcomeCancelled, err.Error())
	}
	raw, err := w.c.call(ctx, "diagnostics", map[string]any{"files": []string{f.asked}})
	r.d = time.Since(start)
	if err != nil {
		return w.c.failed(r, err)
	}
	var a diagAnswer
	err = json.Unmarshal(raw, &a)
	i := slices.IndexFunc(a.Files, func(d diagFile) bool { return d.Path == f.asked && !d.Other })
	if err != nil || i < 0 {
		return r.with(outcomeWrong, fmt.Sprintf("answer is not about %s: %s (%v)", f.asked, raw, err))
	}
	r.others = w.otherFilesOf(a)
	file := a.Files[i]
	r.answer = fmt.Sprintf("status %s, errors %q", file.Status, file.errorsOf())
	if file.Status != "fresh" {
		r.status = file.Status
		r.answer += ", detail: " + file.Detail
		return r.with(outcomeNonFresh, "")
	}
	why := file.mismatch(e)
	if why == "" {
		return r.with(outcomeOK, "")
	}
	r.wrongKind = f.key() + ": fresh, but not what is on disk"
	if prev := f.expectOf(v - 1); file.mismatch(prev) == "" {
		why = "labelled fresh but describes the version before the write (" + prev.String() + "): " + why
		r.wrongKind = f.key() + ": the version before the write, labelled fresh"
	}
	return r.with(outcomeWrong, why)
}
