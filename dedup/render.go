package dedup

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/agentlsp/agentlsp/messages"
)

// Render writes diagnostics in the model format:
//
//	<diagnostics file="pkg/a.go" status="fresh">
//	ERROR [12:5] undefined: foo (compiler/UndeclaredName)
//	... and 3 more
//	</diagnostics>
//
// relPath and status are XML-escaped. Lines and columns are 1-based: the
// column is Character+1, in the server's encoding (converting encodings is
// the caller's job). Each diagnostic is one line: its message's newlines
// become spaces, and it ends with (source/code), (source) or (code) when it
// has them. The "... and N more" line appears when more > 0. Render writes
// once to w and returns w's error.
func Render(w io.Writer, relPath, status string, ds []messages.Diagnostic, more int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<diagnostics file=\"%s\" status=\"%s\">\n", escapeAttr(relPath), escapeAttr(status))
	for _, d := range ds {
		line, col := oneBased(d)
		fmt.Fprintf(&b, "%s [%d:%d] %s", upperName(d.Severity), line, col, oneLine(d.Message))
		if o := origin(d); o != "" {
			fmt.Fprintf(&b, " (%s)", o)
		}
		b.WriteByte('\n')
	}
	if more > 0 {
		fmt.Fprintf(&b, "... and %d more\n", more)
	}
	b.WriteString("</diagnostics>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// NamedMoreFiles bounds the files MoreFilesNote names; it counts the rest.
const NamedMoreFiles = 10

// MoreFilesNote is the line that says an answer left out other files with
// new errors (relPaths, from MoreFiles), naming the first NamedMoreFiles:
//
//	... and 7 more files with new errors: b.go, c.go, ...; ask about them by name
//
// It returns "" when relPaths is empty. The line has no newline.
func MoreFilesNote(relPaths []string) string {
	n := len(relPaths)
	if n == 0 {
		return ""
	}
	names := FileList(relPaths)
	if n == 1 {
		return "... and 1 more file with new errors: " + names + "; ask about it by name"
	}
	return fmt.Sprintf("... and %d more files with new errors: %s; ask about them by name", n, names)
}

// FileList joins the first NamedMoreFiles of relPaths with commas, and
// counts the rest: "a.go, b.go and 3 others".
func FileList(relPaths []string) string {
	n := len(relPaths)
	names := strings.Join(relPaths[:min(n, NamedMoreFiles)], ", ")
	if n > NamedMoreFiles {
		names += fmt.Sprintf(" and %d others", n-NamedMoreFiles)
	}
	return names
}

// FormatLine formats d as a linter line,
// "path:line:col: severity: message [source/code]", with a 1-based line and
// column (Character+1), the lower-case severity name (an unspecified
// severity is an error), the message on one line, and the bracket part
// [source/code], [source] or [code], omitted when d has neither.
func FormatLine(relPath string, d messages.Diagnostic) string {
	line, col := oneBased(d)
	s := fmt.Sprintf("%s:%d:%d: %s: %s", relPath, line, col, rank(d.Severity), oneLine(d.Message))
	if o := origin(d); o != "" {
		s += " [" + o + "]"
	}
	return s
}

// oneBased returns d's 1-based start line and column.
func oneBased(d messages.Diagnostic) (line, col uint64) {
	return uint64(d.Range.Start.Line) + 1, uint64(d.Range.Start.Character) + 1
}

// upperName returns the model format's name for a severity.
func upperName(s messages.Severity) string {
	switch rank(s) {
	case messages.SeverityWarning:
		return "WARN"
	case messages.SeverityInfo:
		return "INFO"
	case messages.SeverityHint:
		return "HINT"
	}
	return "ERROR"
}

// origin returns "source/code", "source", "code" or "".
func origin(d messages.Diagnostic) string {
	switch {
	case d.Source != "" && d.Code != "":
		return d.Source + "/" + d.Code
	case d.Source != "":
		return d.Source
	}
	return d.Code
}

// newlines folds line breaks to spaces.
var newlines = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// oneLine returns msg with its line breaks folded to spaces.
func oneLine(msg string) string {
	return newlines.Replace(msg)
}

// escapeAttr escapes s for a double-quoted XML attribute value.
func escapeAttr(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
