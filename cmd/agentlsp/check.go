package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

const checkAbout = `
Check re-reads each FILE from disk, waits for fresh diagnostics from every
language server that serves it, and prints each diagnostic on one line:

  path:line:col: severity: message [source/code]

Paths are relative to the workspace; lines and columns are 1-based, columns
in characters. After the named files come up to 5 other files whose errors
the check brought to light (files the named ones broke, for instance);
those left out past 5 are named on stderr (--json: moreFilePaths);
--only leaves them all out. A file whose diagnostics are not fresh (a server
timed out, is still indexing or is broken) is named on stderr with the
reason, and so is a file with more diagnostics than the 20 a file shows.
A file named several ways (a.go, ./a.go, through a symlink) is checked
once. Control characters other than tab and newline are printed escaped
(ESC as \x1b); --json keeps them exact.

Exit status: 0 no error-severity diagnostic, 1 errors found, 2 usage error,
3 a file could not be checked: a bad path, no server, or diagnostics that are
not fresh (a server broken, crashed, timed out or still indexing), since then
nothing says the file is clean.`

// maxParallelFiles bounds the files check waits on at once.
const maxParallelFiles = 8

// checkWorkingTimeout bounds the wait for a file's diagnostics while its
// server says it is at work on them (agentlsp.WithWorkingTimeout): past the
// servers' diagnostics timeout, check waits for a server that is starting,
// loading its workspace or diagnosing, as `gopls check` waits for its load.
// gopls's first load of this repository's module with an empty cache
// diagnosed for 4-5 s; --timeout sets a bound of its own instead.
const checkWorkingTimeout = 2 * time.Minute

// checkOptions are check's parsed flags and arguments.
type checkOptions struct {
	json     bool
	only     bool
	severity messages.Severity
	timeout  time.Duration
	files    []string
}

// fileResult is one file's diagnostics, or why there are none.
type fileResult struct {
	arg    string // the path as given
	report messages.FileReport
	others []messages.FileReport // other files the answer named
	err    error
}

// runCheck is the check subcommand.
func runCheck(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("check", "check [--json] [--only] [--severity LEVEL] [--timeout D] [global flags] FILE...", checkAbout)
	fs.sharedFlag()
	asJSON := fs.Bool("json", false, "print a JSON document instead of lines")
	only := fs.Bool("only", false, "report the named files only, not the other files whose errors came to light")
	sev := fs.String("severity", "error", "minimum `LEVEL` reported: error, warning, info or hint")
	timeout := fs.Duration("timeout", 0,
		"wait at most `D` (e.g. 10s) for each file's diagnostics (default: each server's diagnostics timeout, 3s, "+
			"longer while the server says it is starting, loading or diagnosing, up to 2m)")
	files, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	opts := checkOptions{json: *asJSON, only: *only, timeout: *timeout, files: files}
	if opts.severity, err = parseSeverity(*sev); err != nil {
		return usageErrorf("check", "%v", err)
	}
	switch {
	case len(files) == 0:
		return usageErrorf("check", "no FILE given")
	case opts.timeout < 0:
		return usageErrorf("check", "invalid --timeout %v: must not be negative", opts.timeout)
	}
	rt, stop, err := startRuntime(ctx, fs.global, std, func(c *agentlsp.Config) { c.NoWatch = true })
	if err != nil {
		return err
	}
	defer stop()
	opts.files = uniqueFiles(rt.Workspace(), opts.files)
	return check(ctx, rt, opts, std)
}

// uniqueFiles drops the files named before under another name ("a.go",
// "./a.go", its absolute path, a path through a symlinked directory),
// keeping the name given first, so that each file is checked and printed
// once, as the MCP diagnostics tool does. A name that does not resolve
// (missing, outside the workspace) is compared as written, cleaned: its
// error is reported once.
func uniqueFiles(workspace string, files []string) []string {
	seen := make(map[string]bool, len(files))
	out := make([]string, 0, len(files))
	for _, f := range files {
		key, err := paths.InWorkspace(workspace, f)
		if err != nil {
			key = "unresolved:" + filepath.Clean(f)
			if !filepath.IsAbs(f) {
				key = "unresolved:" + filepath.Join(workspace, f)
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out
}

// parseSeverity parses a --severity value.
func parseSeverity(s string) (messages.Severity, error) {
	for _, sev := range []messages.Severity{messages.SeverityError, messages.SeverityWarning,
		messages.SeverityInfo, messages.SeverityHint} {
		if s == sev.String() {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("invalid --severity %q: want error, warning, info or hint", s)
}

// check diagnoses the files, prints the results and returns the error
// that decides the exit status.
func check(ctx context.Context, rt *agentlsp.Runtime, opts checkOptions, std stdio) error {
	var results []fileResult
	withProgress(rt, std.errOut, func() { results = diagnose(ctx, rt.Session("cli"), opts) })
	if err := ctx.Err(); err != nil {
		return err
	}
	ed := rt.Editor()
	var err error
	if opts.json {
		err = printCheckJSON(std.out, ed, results)
	} else {
		err = printCheckLines(std.out, ed, results)
	}
	if err != nil {
		return failure(err)
	}
	printNotices(std.errOut, ed, results)
	return checkStatus(results)
}

// diagnose waits for the fresh diagnostics of every file, at most
// maxParallelFiles at a time, and returns them in the order given.
func diagnose(ctx context.Context, s *agentlsp.Session, opts checkOptions) []fileResult {
	// The files are one check: a change to one of them is not another
	// agent's in another's answer.
	do := []agentlsp.EditOption{agentlsp.WithMinSeverity(opts.severity), agentlsp.WithNamed(opts.files...)}
	if opts.timeout > 0 {
		do = append(do, agentlsp.WithTimeout(opts.timeout))
	} else {
		do = append(do, agentlsp.WithWorkingTimeout(checkWorkingTimeout))
	}
	if opts.only {
		do = append(do, agentlsp.WithOtherFiles(-1))
	}
	if len(opts.files) > 1 {
		s.OpenAll(ctx, opts.files) // as Diagnostics does: see there
	}
	out := make([]fileResult, len(opts.files))
	next := make(chan int, len(opts.files))
	for i := range opts.files {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(len(opts.files), maxParallelFiles) {
		// A worker lives until next is drained; joined below.
		wg.Go(func() {
			for i := range next {
				out[i] = diagnoseFile(ctx, s, opts.files[i], do)
			}
		})
	}
	wg.Wait()
	return appendOtherFiles(out)
}

func diagnoseFile(ctx context.Context, s *agentlsp.Session, path string, opts []agentlsp.EditOption) fileResult {
	reports, err := s.Diagnostics(ctx, []string{path}, opts...)
	if err != nil {
		return fileResult{arg: path, err: err}
	}
	return fileResult{arg: path, report: reports[0], others: reports[1:]}
}

// appendOtherFiles appends the other files the answers named, as
// Session.Diagnostics merges its answers (dedup.AppendOthers).
func appendOtherFiles(named []fileResult) []fileResult {
	reports := make([]messages.FileReport, len(named))
	others := make([][]messages.FileReport, len(named))
	for i, r := range named {
		reports[i], others[i] = r.report, r.others
	}
	merged := dedup.AppendOthers(reports, others, 0)
	for i := range named {
		named[i].report = merged[i] // with the files left out (MoreFiles)
	}
	for _, o := range merged[len(named):] {
		named = append(named, fileResult{arg: o.Path, report: o})
	}
	return named
}

// printCheckLines prints one line per diagnostic.
func printCheckLines(w io.Writer, ed *agentlsp.Editor, results []fileResult) error {
	for _, r := range results {
		if r.err != nil {
			continue
		}
		for _, line := range ed.Lines([]messages.FileReport{r.report}) {
			if _, err := fmt.Fprintln(w, safeLine(line)); err != nil {
				return err
			}
		}
	}
	return nil
}

// printNotices names on w the files that could not be checked, whose
// diagnostics are not fresh, or that have more diagnostics than shown,
// then the other files with new errors left out.
func printNotices(w io.Writer, ed *agentlsp.Editor, results []fileResult) {
	for _, r := range results {
		path := ed.Rel(r.report.Path)
		switch {
		case r.err != nil:
			notef(w, "%s", naming(r.arg, r.err.Error()))
			continue
		case r.report.Status == messages.StatusNoServer:
			notef(w, "%s", naming(r.arg, r.report.Detail)) // it says so in words
		case r.report.Status != messages.StatusFresh && r.report.Detail != "":
			notef(w, "%s: %s: %s", path, r.report.Status, trimPrefix(r.report.Detail))
		case r.report.Status != messages.StatusFresh:
			notef(w, "%s: %s", path, r.report.Status)
		}
		if r.report.More > 0 {
			notef(w, "%s: %d more diagnostics not shown", path, r.report.More)
		}
		if len(r.report.ChangedBy) > 0 {
			notef(w, "%s may have been broken otherwise: %s", path, strings.Join(r.report.ChangedBy, ", "))
		}
	}
	if more := ed.MoreFiles(reportsOf(results)); len(more) > 0 {
		notef(w, "%d more %s with new errors not shown: %s; check them by name",
			len(more), plural(len(more), "file"), dedup.FileList(more))
	}
}

// naming is msg without its "agentlsp: " prefix, after the file's name
// when msg does not name it (a server's failure names the server).
func naming(arg, msg string) string {
	msg = trimPrefix(msg)
	if !strings.Contains(msg, arg) {
		msg = arg + ": " + msg
	}
	return msg
}

// reportsOf returns the reports of results.
func reportsOf(results []fileResult) []messages.FileReport {
	out := make([]messages.FileReport, len(results))
	for i, r := range results {
		out[i] = r.report
	}
	return out
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// notef writes one "agentlsp: ..." line on w, servers' text and file
// names in it escaped (safeText).
func notef(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "agentlsp: %s\n", safeText(fmt.Sprintf(format, args...)))
}

// checkStatus is check's result: a failure (3) when a file could not be
// checked, errFound (1) when an error-severity diagnostic exists. A named
// file whose diagnostics are not fresh was not checked: exiting 0 after a
// timeout, or while its server restarts after a crash, would say it is
// clean when nothing said so (printNotices names it and why).
func checkStatus(results []fileResult) error {
	found := false
	for _, r := range results {
		if r.err != nil {
			return &cliError{code: exitFailure, err: r.err, reported: true}
		}
		if !r.report.Other && r.report.Status != messages.StatusFresh {
			return &cliError{code: exitFailure, err: errors.New("agentlsp: a file could not be checked"), reported: true}
		}
		for _, d := range r.report.Diagnostics {
			found = found || d.Severity == messages.SeverityError
		}
	}
	if found {
		return errFound
	}
	return nil
}

// checkJSON is check's --json document.
type checkJSON struct {
	Files []fileJSON `json:"files"`
	// MoreFiles counts the other files with new errors left out past the
	// 5 shown, and MoreFilePaths names them.
	MoreFiles     int      `json:"moreFiles"`
	MoreFilePaths []string `json:"moreFilePaths,omitempty"`
}

// fileJSON is one file in checkJSON. Status is a diagnostics status
// (fresh, timeout, project_error, no_server, server_broken, ...) or, for
// a file that could not be checked otherwise (deleted, outside the
// workspace), error; Detail says why.
type fileJSON struct {
	Path        string           `json:"path"`
	Other       bool             `json:"other,omitempty"` // not named: its errors came to light with the check
	Status      string           `json:"status"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
	More        int              `json:"more"`
	Detail      string           `json:"detail"`
	// ChangedBy, for another file, names the changes other than to the
	// files checked that could have made its errors (FileReport.ChangedBy):
	// another agent's, for one, when the check goes through a shared daemon.
	ChangedBy []string `json:"changedBy,omitempty"`
}

// diagnosticJSON is one diagnostic, 1-based, columns in characters, the
// end exclusive.
type diagnosticJSON struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Source    string `json:"source"`
	Code      string `json:"code"`
}

// printCheckJSON prints the results as one indented JSON document.
func printCheckJSON(w io.Writer, ed *agentlsp.Editor, results []fileResult) error {
	doc := checkJSON{Files: make([]fileJSON, 0, len(results)), MoreFilePaths: ed.MoreFiles(reportsOf(results))}
	doc.MoreFiles = len(doc.MoreFilePaths)
	for _, r := range results {
		doc.Files = append(doc.Files, fileEntry(ed, r))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func fileEntry(ed *agentlsp.Editor, r fileResult) fileJSON {
	if r.err != nil {
		return fileJSON{Path: argPath(ed, r.arg), Status: "error",
			Diagnostics: []diagnosticJSON{}, Detail: trimPrefix(r.err.Error())}
	}
	f := fileJSON{Path: ed.Rel(r.report.Path), Other: r.report.Other, Status: string(r.report.Status),
		Diagnostics: []diagnosticJSON{}, More: r.report.More, Detail: trimPrefix(r.report.Detail), ChangedBy: r.report.ChangedBy}
	for _, d := range ed.FileDiagnostics(r.report) {
		f.Diagnostics = append(f.Diagnostics, diagnosticJSON{
			Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1,
			EndLine: int(d.Range.End.Line) + 1, EndColumn: int(d.Range.End.Character) + 1,
			Severity: d.Severity.String(), Message: d.Message, Source: d.Source, Code: d.Code,
		})
	}
	return f
}

// argPath is a path argument as the workspace-relative path it names when
// it is absolute and inside the workspace, else cleaned.
func argPath(ed *agentlsp.Editor, arg string) string {
	arg = paths.Given(arg) // a file:// URI names its path
	if filepath.IsAbs(arg) {
		return ed.Rel(arg)
	}
	return filepath.ToSlash(filepath.Clean(arg))
}
