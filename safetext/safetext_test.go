package safetext

import "testing"

// TestEscape: controls, invalid bytes and the invisible characters that
// reorder or hide text are escaped; everything else, tab, newline and
// CR LF included, is kept as it is.
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é 😀 日本", "plain é 😀 日本"},
		{"tab\tnl\ncrlf\r\n", "tab\tnl\ncrlf\r\n"},
		{"\x1b[31mred\x1b[0m \a\b\x7f \u009b2J", `\x1b[31mred\x1b[0m \a\b\x7f \u009b2J`},
		{"cr\roverwrite", `cr\roverwrite`},
		{"bad \xff byte, kept \uFFFD", `bad \xff byte, kept ` + "\uFFFD"},
		// Trojan Source: the overrides and isolates.
		{"if access \u202e} \u2066admin\u2069 {\u202c", `if access \u202e} \u2066admin\u2069 {\u202c`},
		{"\u202a\u202b\u202d\u2067\u2068", `\u202a\u202b\u202d\u2067\u2068`},
		// Zero-width characters and marks, the byte-order mark.
		{"a\u200bb\u200cc\u200dd\u200ee\u200ff", `a\u200bb\u200cc\u200dd\u200ee\u200ff`},
		{"\ufeffstart", `\ufeffstart`},
		// Separators that break a line where no newline is.
		{"one\u2028two\u2029three", `one\u2028two\u2029three`},
		// Tag characters: words no one sees.
		{"ok\U000E0069\U000E0067", `ok\U000e0069\U000e0067`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEscapeLine: a newline (and a CR LF) is escaped too, so the text
// stays one line.
func TestEscapeLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a.py:1:1", "a.py:1:1"},
		{"a.py\nmain.py:1:1: error: forged\nb.py:1:1", `a.py\nmain.py:1:1: error: forged\nb.py:1:1`},
		{"crlf\r\nnext\x1b", `crlf\r\nnext\x1b`},
		{"tab\tkept \u202e", `tab` + "\t" + `kept \u202e`},
	} {
		if got := EscapeLine(tc.in); got != tc.want {
			t.Errorf("EscapeLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
