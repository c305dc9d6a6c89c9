package dedup

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

// withOrigin returns d with the given source and code.
func withOrigin(d messages.Diagnostic, source, code string) messages.Diagnostic {
	d.Source, d.Code = source, code
	return d
}

func TestRender(t *testing.T) {
	tests := []struct {
		name, path, status string
		ds                 []messages.Diagnostic
		more               int
		want               string
	}{
		{
			name: "design example", path: "pkg/a.go", status: "fresh",
			ds:   []messages.Diagnostic{withOrigin(diag(sevError, 11, 4, "undefined: foo"), "compiler", "UndeclaredName")},
			more: 3,
			want: "<diagnostics file=\"pkg/a.go\" status=\"fresh\">\n" +
				"ERROR [12:5] undefined: foo (compiler/UndeclaredName)\n" +
				"... and 3 more\n" +
				"</diagnostics>\n",
		},
		{
			name: "empty", path: "a.go", status: "timeout",
			want: "<diagnostics file=\"a.go\" status=\"timeout\">\n</diagnostics>\n",
		},
		{
			name: "severities and origins", path: "a.py", status: "stale",
			ds: []messages.Diagnostic{
				withOrigin(diag(sevNone, 0, 0, "no severity"), "", ""),
				withOrigin(diag(sevWarn, 1, 2, "unused"), "pyright", ""),
				withOrigin(diag(sevInfo, 2, 3, "info"), "", "E501"),
				withOrigin(diag(sevHint, 3, 4, "hint"), "ruff", "F401"),
			},
			want: "<diagnostics file=\"a.py\" status=\"stale\">\n" +
				"ERROR [1:1] no severity\n" +
				"WARN [2:3] unused (pyright)\n" +
				"INFO [3:4] info (E501)\n" +
				"HINT [4:5] hint (ruff/F401)\n" +
				"</diagnostics>\n",
		},
		{
			name: "escaping and newlines", path: `dir/a"b<c>&'d.go`, status: "fresh",
			ds: []messages.Diagnostic{diag(sevError, 0, 0, "line one\nline two\r\nthree\rfour <T> & more")},
			want: "<diagnostics file=\"dir/a&#34;b&lt;c&gt;&amp;&#39;d.go\" status=\"fresh\">\n" +
				"ERROR [1:1] line one line two three four <T> & more\n" +
				"</diagnostics>\n",
		},
		{
			name: "zero more is silent", path: "a.go", status: "fresh", more: 0,
			ds: []messages.Diagnostic{diag(sevWarn, 4294967295, 4294967295, "max")},
			want: "<diagnostics file=\"a.go\" status=\"fresh\">\n" +
				"WARN [4294967296:4294967296] max\n" +
				"</diagnostics>\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := Render(&b, tt.path, tt.status, tt.ds, tt.more); err != nil {
				t.Fatalf("Render(%q, %q) = %v, want nil", tt.path, tt.status, err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("Render(%q, %q, %v, %d) mismatch (-want +got):\n%s", tt.path, tt.status, tt.ds, tt.more, diff)
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestRenderWriteError(t *testing.T) {
	want := errors.New("disk full")
	if err := Render(failingWriter{want}, "a.go", "fresh", nil, 0); !errors.Is(err, want) {
		t.Errorf("Render(failing writer) = %v, want %v", err, want)
	}
}

func TestFormatLine(t *testing.T) {
	tests := []struct {
		d    messages.Diagnostic
		want string
	}{
		{withOrigin(diag(sevError, 11, 4, "undefined: foo"), "compiler", "UndeclaredName"),
			"pkg/a.go:12:5: error: undefined: foo [compiler/UndeclaredName]"},
		{withOrigin(diag(sevWarn, 0, 0, "unused"), "vet", ""), "pkg/a.go:1:1: warning: unused [vet]"},
		{withOrigin(diag(sevInfo, 1, 1, "info"), "", "E1"), "pkg/a.go:2:2: info: info [E1]"},
		{diag(sevHint, 2, 0, "hint"), "pkg/a.go:3:1: hint: hint"},
		{diag(sevNone, 0, 0, "two\nlines"), "pkg/a.go:1:1: error: two lines"},
	}
	for _, tt := range tests {
		if got := FormatLine("pkg/a.go", tt.d); got != tt.want {
			t.Errorf("FormatLine(pkg/a.go, %+v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
