package textpos

import (
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestParseEncoding(t *testing.T) {
	tests := []struct {
		in   string
		want Encoding
	}{
		{"", UTF16},
		{"utf-16", UTF16},
		{"utf-8", UTF8},
		{"UTF-8", UTF8},
		{"utf-32", UTF32},
		{"latin-1", UTF16},
	}
	for _, tt := range tests {
		if got := ParseEncoding(tt.in); got != tt.want {
			t.Errorf("ParseEncoding(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		text    string
		n       int
		want    string
		wantErr string
	}{
		{"", 0, "", ""},
		{"", 1, "", "textpos: line 2 is past the end of the file (0 lines)"},
		{"one", 0, "one", ""},
		{"one", 1, "", "textpos: line 2 is past the end of the file (1 line)"},
		{"one\ntwo", 1, "two", ""},
		{"one\ntwo\n", 1, "two", ""},
		{"one\ntwo\n", 2, "", ""},
		{"one\ntwo\n", 3, "", "textpos: line 4 is past the end of the file (2 lines)"},
		{"one\r\ntwo\r\nthree", 0, "one", ""},
		{"one\r\ntwo\r\nthree", 2, "three", ""},
		{"one\rtwo\rthree", 1, "two", ""},
		{"a\r\rb", 1, "", ""},
		{"a\r\rb", 2, "b", ""},
		{"a\n\r\nb\r", 2, "b", ""},
		{"a\n\r\nb\r", 3, "", ""},
		{"a\n\r\nb\r", 4, "", "textpos: line 5 is past the end of the file (3 lines)"},
		{"\n", 0, "", ""},
		{"\n", 1, "", ""},
		{"x😀y\ncafé\n日本語", 2, "日本語", ""},
		{"one", -1, "", "textpos: negative line -1"},
	}
	for _, tt := range tests {
		got, err := Line(tt.text, tt.n)
		if msg := errString(err); got != tt.want || msg != tt.wantErr {
			t.Errorf("Line(%q, %d) = %q, %q, want %q, %q", tt.text, tt.n, got, msg, tt.want, tt.wantErr)
		}
	}
}

func TestLineErrorsMatch(t *testing.T) {
	if _, err := Line("a\nb", 5); !errors.Is(err, ErrPastEnd) {
		t.Errorf("Line past the end = %v, want ErrPastEnd", err)
	}
	if _, err := Line("a", -2); !errors.Is(err, ErrNegative) {
		t.Errorf("Line(-2) = %v, want ErrNegative", err)
	}
}

func TestLen(t *testing.T) {
	tests := []struct {
		s                string
		utf8, u16, utf32 int
	}{
		{"", 0, 0, 0},
		{"abc", 3, 3, 3},
		{"café", 5, 4, 4},
		{"x😀y", 6, 4, 3},
		{"日本語", 9, 3, 3},
		{"a\xffb", 3, 3, 3},
	}
	for _, tt := range tests {
		for enc, want := range map[Encoding]int{UTF8: tt.utf8, UTF16: tt.u16, UTF32: tt.utf32} {
			if got := Len(tt.s, enc); got != want {
				t.Errorf("Len(%q, %s) = %d, want %d", tt.s, enc, got, want)
			}
		}
	}
}

// errString is err's message, "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
