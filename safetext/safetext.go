// Package safetext makes text from language servers and file names safe
// to show: to a terminal (the CLI's text output) and to the person who
// reads an agent's transcript (MCP tools' text content).
//
// Escape writes, as Go escapes them, what would make the text shown
// differ from the text that is: control characters (ESC starts a
// terminal escape sequence; CR returns over what was written), bytes
// that are not UTF-8, and the invisible characters that reorder or hide
// text. Those are the Unicode format characters (category Cf: the
// bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069
// that Trojan Source uses, the zero-width space, joiners and marks
// U+200B-U+200F, the byte-order mark U+FEFF, the tag characters
// U+E0000-U+E007F that can carry text no one sees) and the line and
// paragraph separators U+2028 and U+2029, which break a line where no
// newline is. Tab, newline and CR LF (a line end, which a hover of a file
// with CRLF line ends holds) are kept; so are backslashes (the text is
// for reading; callers who need it exact take JSON).
//
// The package is pure and safe for concurrent use.
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character Escaped replaced by its Go
// escape (\x1b, \u202e, \U000e0041) and every byte that is not UTF-8 by
// \xNN. It returns s itself when nothing needs escaping.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
			b.WriteString("\r\n") // a line end, as harmless as \n
			n = 2
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Escaped(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeRune is r's Go escape: strconv's for the controls (\a, \x1b,
// \u009b), \u or \U for the others, which strconv would keep when
// printable (U+2028 is not a graphic character, but some are).
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1]
}

// needsEscape says whether Escape changes s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf { // ASCII, byte by byte: no decoding
			if Escaped(rune(c)) && !(c == '\r' && i+1 < len(s) && s[i+1] == '\n') {
				return true
			}
			continue
		}
		return needsEscapeRunes(s[i:])
	}
	return false
}

// needsEscapeRunes is needsEscape from the first byte that is not ASCII.
func needsEscapeRunes(s string) bool {
	for i, r := range s {
		if r == '\r' && strings.HasPrefix(s[i:], "\r\n") {
			continue
		}
		if Escaped(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return true
		}
	}
	return false
}

// Escaped says whether Escape escapes r: a control character other than
// tab and newline, a format character (Cf), or a line or paragraph
// separator.
func Escaped(r rune) bool {
	switch {
	case r < utf8.RuneSelf: // ASCII, most of every text: no table lookup
		return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
		return true
	}
	return r == '\u2028' || r == '\u2029'
}

// EscapeLine is Escape for text that must stay one line (a record of a
// linter's output, a location): a newline is escaped too (\n), so that a
// file named "a.py\nmain.py:1:1: error: forged" cannot print a line of
// its own.
func EscapeLine(s string) string {
	s = Escape(s)
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", `\r\n`), "\n", `\n`)
}
