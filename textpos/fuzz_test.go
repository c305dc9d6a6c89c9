package textpos

import (
	"errors"
	"strings"
	"testing"
)

func FuzzRoundTrip(f *testing.F) {
	f.Add("package main\n\nfunc main() {}\n", 3, 6)
	f.Add("café\r\nx😀y\r日本語", 2, 3)
	f.Add("", 1, 1)
	f.Add("a\xff\xfeb\r\r\n", 1, 3)
	f.Add("\uFEFFpackage main\n\uFEFF", 1, 9)
	f.Fuzz(func(t *testing.T, text string, line1, col1 int) {
		for _, enc := range []Encoding{UTF16, UTF8} {
			line, char, err := FromEditor(text, line1, col1, enc)
			if err != nil {
				if !knownError(err) {
					t.Fatalf("FromEditor(%q, %d, %d, %s) = %v: not a package error", text, line1, col1, enc, err)
				}
				continue
			}
			checkRoundTrip(t, text, line1, col1, enc)
			if off, err := Offset(text, line, char, enc); err != nil || off > len(text) {
				t.Fatalf("Offset(%q, %d, %d, %s) = %d, %v", text, line, char, enc, off, err)
			}
		}
		// Arbitrary LSP positions must not panic either.
		_, _, _ = ToEditor(text, line1, col1, UTF16)
		_, _ = Offset(text, line1, col1, UTF8)
	})
}

func FuzzLine(f *testing.F) {
	f.Add("one\ntwo\r\nthree\rfour", 2)
	f.Add("\n\r\r\n", 3)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, n int) {
		got, err := Line(text, n)
		checkLines(t, NewLines(text), text, n)
		terminators := strings.Count(text, "\n") + strings.Count(text, "\r") - strings.Count(text, "\r\n")
		valid := n >= 0 && n <= terminators
		if valid != (err == nil) {
			t.Fatalf("Line(%q, %d) = %q, %v; %d terminators", text, n, got, err, terminators)
		}
		if err != nil {
			if !knownError(err) {
				t.Fatalf("Line(%q, %d) = %v: not a package error", text, n, err)
			}
			return
		}
		if strings.ContainsAny(got, "\r\n") || !strings.Contains(text, got) {
			t.Fatalf("Line(%q, %d) = %q", text, n, got)
		}
	})
}

// knownError reports whether err wraps one of the package's sentinels.
func knownError(err error) bool {
	for _, s := range []error{ErrPastEnd, ErrMidCharacter, ErrNegative, ErrSymbolNotFound} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// indexBreak finds what strings.IndexAny(s, "\r\n") finds, in a text
// whose '\r' it was told of.
func FuzzIndexBreak(f *testing.F) {
	for _, s := range []string{"", "a", "\n", "\r", "\r\n", "ab\ncd", "ab\rcd\n", "ab\ncd\r", "\n\r", "é\r\n", "x\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := indexBreak(s, hasCR(s)), strings.IndexAny(s, "\r\n"); got != want {
			t.Errorf("indexBreak(%q) = %d, want %d", s, got, want)
		}
	})
}
