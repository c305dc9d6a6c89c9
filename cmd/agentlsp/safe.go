package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// safeText is s made safe to print on a terminal: every control character
// but tab and newline (ESC, NUL, CR, DEL, the C1 controls such as U+009B,
// which terminals take for an escape sequence's start) and every byte that
// is not UTF-8 is written as Go escapes it (\x1b, \x00, \r, \u009b, \xff).
// Language servers' text (diagnostic messages, hover, symbol names, their
// errors) and file names reach the text output through it; --json output
// needs it not, JSON escapes them itself. Backslashes are left as they are:
// the text is for reading, the JSON for taking exactly.
func safeText(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case escaped(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape says whether safeText changes s.
func needsEscape(s string) bool {
	for i, r := range s {
		if escaped(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return true
		}
	}
	return false
}

// escaped says whether safeText escapes r.
func escaped(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n'
}
