package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// MaxDiagnosticsFiles bounds the files of one diagnostics call.
const MaxDiagnosticsFiles = 50

// noWait is the wait for diagnostics when the caller asked not to wait: long
// enough to take what is already known, short enough that the status says
// honestly when it is not current.
const noWait = time.Millisecond

// startupWait bounds how long a waiting diagnostics call waits past the
// diagnostics timeout while a server says it is at work on the files
// (starting, loading, diagnosing: agentlsp.WithWorkingTimeout).
const startupWait = 30 * time.Second

// DiagnosticsInput is the diagnostics tool's input.
type DiagnosticsInput struct {
	Files []string `json:"files" jsonschema:"the files to check, relative to the workspace or absolute (at most 50)"`
	Wait  *bool    `json:"wait,omitempty" jsonschema:"wait until the servers produced diagnostics for the files as they are on disk (default true); false answers at once with what is known, its status saying whether it is current"`
}

// DiagnosticsOutput is the diagnostics tool's structured answer.
type DiagnosticsOutput struct {
	Files []FileDiagnostics `json:"files"`
	// Skipped names the files asked for that could not be checked (deleted,
	// outside the workspace, ...), each with the problem; the others were.
	Skipped []string `json:"skipped,omitempty"`
	// MoreFiles counts the other files with new errors left out past the
	// cap on other files (5), and MoreFilePaths names them: a call naming
	// them gives their diagnostics.
	MoreFiles     int      `json:"moreFiles,omitempty"`
	MoreFilePaths []string `json:"moreFilePaths,omitempty"`
}

// FileDiagnostics is the diagnostics of one file. Status is fresh, stale,
// timeout, not_ready, project_error (its server could not load the project:
// a broken go.mod, no Cargo.toml), no_server (no server serves the file) or
// server_broken (its server is not installed or cannot start); Detail says
// why when it is not fresh. More counts the diagnostics beyond the cap.
type FileDiagnostics struct {
	Path        string       `json:"path"`
	Other       bool         `json:"other,omitempty"` // not asked for: its diagnostics changed since the previous answer
	Status      string       `json:"status"`
	Detail      string       `json:"detail,omitempty"`
	Servers     []string     `json:"servers"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	More        int          `json:"more,omitempty"`
	// ChangedBy names, for another file, the changes other than to the
	// files named that could have made its new errors (empty: only theirs
	// could have).
	ChangedBy []string `json:"changedBy,omitempty"`
}

// Diagnostic is one diagnostic; lines and columns are 1-based and count
// characters.
type Diagnostic struct {
	Severity  string `json:"severity"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
	Code      string `json:"code,omitempty"`
}

// diagnosticsTool describes the diagnostics tool; wait defaults to true.
func diagnosticsTool() *sdk.Tool {
	schema, err := jsonschema.For[DiagnosticsInput](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: diagnostics input schema: %v", err)) // a bug in DiagnosticsInput
	}
	schema.Properties["wait"].Default = []byte("true")
	return &sdk.Tool{
		Name:  "diagnostics",
		Title: "Diagnostics",
		Description: "Check files with the workspace's language servers after editing them: re-reads the files " +
			"from disk, waits for fresh diagnostics and reports every current error (compiler and type errors, " +
			"undefined names, ...) as <diagnostics file=... status=...> blocks with [line:column] positions. " +
			"status=\"fresh\" means the diagnostics describe the files as they are now; any other status " +
			"(stale, timeout, not_ready, project_error, no_server, server_broken) comes with a note saying why; " +
			"project_error quotes the language server's message about the project it could not load (a broken " +
			"go.mod or Cargo.toml, no Cargo.toml): fix the project, then check again. " +
			"Files not named that have new errors follow: first those only the named files' changes could have " +
			"broken, then those other changes could have (another agent's, or yours to files not named), each " +
			"with a note naming them; at most 5, then a line naming the other files with new errors left out.",
		InputSchema: schema,
		Annotations: readOnly("Diagnostics"),
	}
}

// diagnostics handles a call of the diagnostics tool.
func (t *tools) diagnostics(ctx context.Context, _ *sdk.CallToolRequest, in DiagnosticsInput) (*sdk.CallToolResult, DiagnosticsOutput, error) {
	files, skipped, err := t.checkFiles(in.Files)
	if err != nil {
		return nil, DiagnosticsOutput{}, err
	}
	reports, err := t.fileReports(ctx, files, in.Wait == nil || *in.Wait)
	if err != nil {
		var failed []error
		if reports, failed, err = t.unchecked(ctx, files, reports, err); err != nil {
			return nil, DiagnosticsOutput{}, explain(ctx, err, t.timeout)
		}
		skipped = append(skipped, failed...)
	}
	ed := t.rt.Editor()
	var b strings.Builder
	named := slices.IndexFunc(reports, func(r messages.FileReport) bool { return r.Other })
	if named < 0 {
		named = len(reports)
	}
	shown := withoutMoreFiles(reports) // the line naming them comes last
	if err := ed.Render(&b, shown[:named]); err != nil {
		return nil, DiagnosticsOutput{}, err
	}
	others := shown[named:]
	meanwhile := slices.IndexFunc(others, func(r messages.FileReport) bool { return len(r.ChangedBy) > 0 })
	if meanwhile < 0 {
		meanwhile = len(others)
	}
	for _, g := range []struct {
		header string
		files  []messages.FileReport
	}{
		{"Other files with errors new since the previous answer (files this change may have broken):\n", others[:meanwhile]},
		{"Other files with errors new since the previous answer that other changes may have caused " +
			"(another agent's, or yours to files not named here; each note says which):\n", others[meanwhile:]},
	} {
		if len(g.files) == 0 {
			continue
		}
		b.WriteString(g.header)
		if err := ed.Render(&b, g.files); err != nil {
			return nil, DiagnosticsOutput{}, err
		}
	}
	out := DiagnosticsOutput{Files: make([]FileDiagnostics, 0, len(reports)), MoreFilePaths: ed.MoreFiles(reports)}
	out.MoreFiles = len(out.MoreFilePaths)
	if note := ed.MoreFilesNote(reports); note != "" {
		b.WriteString(note + "\n")
	}
	for _, r := range reports {
		f := fileDiagnostics(ed, r)
		if f.Detail != "" {
			fmt.Fprintf(&b, "note: %s is %s: %s\n", f.Path, f.Status, indent(f.Detail))
		}
		if len(f.ChangedBy) > 0 {
			fmt.Fprintf(&b, "note: %s may have been broken otherwise: %s\n", f.Path, strings.Join(f.ChangedBy, ", "))
		}
		out.Files = append(out.Files, f)
	}
	for _, err := range skipped {
		msg := strings.TrimPrefix(err.Error(), "agentlsp: ")
		fmt.Fprintf(&b, "note: not checked: %s\n", msg)
		out.Skipped = append(out.Skipped, msg)
	}
	return textResult(b.String()), out, nil
}

// withoutMoreFiles returns a copy of reports without their MoreFiles.
func withoutMoreFiles(reports []messages.FileReport) []messages.FileReport {
	out := slices.Clone(reports)
	for i := range out {
		out[i].MoreFiles = nil
	}
	return out
}

// fileReports re-syncs the files and gets their diagnostics. Waiting, it
// waits past the diagnostics timeout while a server says it is at work on
// them, for up to startupWait: the first call after a server starts can
// take longer than the diagnostics timeout (gopls's first load of a module
// diagnosed for 5-7 s). Not waiting, it takes what is known.
func (t *tools) fileReports(ctx context.Context, files []string, wait bool) ([]messages.FileReport, error) {
	if !wait {
		return t.session.Diagnostics(ctx, files, agentlsp.WithTimeout(noWait))
	}
	return t.session.Diagnostics(ctx, files, agentlsp.WithWorkingTimeout(startupWait))
}

// checkFiles checks the files before anything is synced: it returns those
// that can be checked (duplicates dropped) and the problem of each other
// one (a file deleted, a path outside the workspace, ...), so that one bad
// name does not lose the others' diagnostics. The call fails, naming every
// problem, when no file can be checked, or the list itself is wrong.
func (t *tools) checkFiles(files []string) ([]string, []error, error) {
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%w: files is empty: name at least one file", ErrBadInput)
	}
	if len(files) > MaxDiagnosticsFiles {
		return nil, nil, fmt.Errorf("%w: %d files, at most %d per call", ErrBadInput, len(files), MaxDiagnosticsFiles)
	}
	var errs []error
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		abs, err := paths.CheckFile(t.rt.Workspace(), f)
		if err == nil {
			_, _, err = paths.ReadText(abs, f)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !seen[abs] { // resolved: a file named through a link is the same file
			seen[abs] = true
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, nil, errors.Join(errs...)
	}
	return out, errs, nil
}

// unchecked sorts out the files of a diagnostics call that could not be
// checked, so that one of them does not lose the others' answers.
// Session.Diagnostics answers such a file with a report of its path alone
// (no Status) and joins their errors in the order of the files (a file
// that no server serves, or whose servers are broken, has a report of
// that status instead: no_server, server_broken). Each such file (a file
// deleted since checkFiles saw it, ...) is left out, its error returned
// as skipped. The call fails when its context ended, when the runtime
// shuts down, or when no file named is left.
func (t *tools) unchecked(ctx context.Context, files []string, reports []messages.FileReport, err error) ([]messages.FileReport, []error, error) {
	errs := unjoin(err)
	var failed []int
	for i := range min(len(files), len(reports)) {
		if reports[i].Status == "" {
			failed = append(failed, i)
		}
	}
	if ctx.Err() != nil || errors.Is(err, agentlsp.ErrShutdown) || len(failed) != len(errs) {
		return nil, nil, err
	}
	var skipped []error
	for k, i := range failed {
		if e := errs[k]; strings.Contains(e.Error(), files[i]) {
			skipped = append(skipped, e)
		} else { // a server's failure names the server, not the file
			skipped = append(skipped, &fileError{path: files[i], err: e})
		}
	}
	out := slices.DeleteFunc(slices.Clone(reports), func(r messages.FileReport) bool { return r.Status == "" })
	if !slices.ContainsFunc(out, func(r messages.FileReport) bool { return !r.Other }) {
		return nil, nil, err
	}
	return out, skipped, nil
}

// unjoin returns the errors err joins, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// fileError names the file of an error that names none.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return e.path + ": " + strings.TrimPrefix(e.err.Error(), "agentlsp: ")
}

func (e *fileError) Unwrap() error { return e.err }

// fileDiagnostics converts a report to the editor view.
func fileDiagnostics(ed *agentlsp.Editor, r messages.FileReport) FileDiagnostics {
	f := FileDiagnostics{Path: ed.Rel(r.Path), Other: r.Other, Status: string(r.Status), Detail: r.Detail,
		Servers: append([]string{}, r.Servers...), Diagnostics: []Diagnostic{}, More: r.More, ChangedBy: r.ChangedBy}
	for _, d := range ed.FileDiagnostics(r) {
		f.Diagnostics = append(f.Diagnostics, Diagnostic{
			Severity: d.Severity.String(), Message: d.Message, Source: d.Source, Code: d.Code,
			Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1,
			EndLine: int(d.Range.End.Line) + 1, EndColumn: int(d.Range.End.Character) + 1,
		})
	}
	return f
}
