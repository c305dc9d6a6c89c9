package textpos

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQuoted bounds how much of a line an error message quotes, in bytes.
const maxQuoted = 120

// SymbolColumn returns the 0-based column, in characters (code points), of
// the first whole-word occurrence of symbol in line: not glued to an
// identifier character on either side, where identifiers are made of
// letters and digits of any script, '_' and '$' (as in JavaScript). A part
// of a longer identifier ("tring" in "string") is not a match. With no
// whole-word occurrence, the error wraps ErrSymbolNotFound and quotes the
// line (cut to 120 bytes), saying when the symbol occurs only inside
// longer words.
//
// Spaces around symbol are no part of it: " target" was matched at the
// space before target, where a server finds nothing.
func SymbolColumn(line, symbol string) (int, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" {
		return 0, errorf(ErrSymbolNotFound, "empty symbol")
	}
	inWord := false
	for i := 0; i <= len(line); {
		j := strings.Index(line[i:], symbol)
		if j < 0 {
			break
		}
		at := i + j
		if wholeWord(line, at, at+len(symbol)) {
			return utf8.RuneCountInString(line[:at]), nil
		}
		inWord = true
		_, size := utf8.DecodeRuneInString(line[at:])
		i = at + size
	}
	if inWord {
		return 0, errorf(ErrSymbolNotFound, "symbol %q occurs only inside longer words in line %q", symbol, clip(line))
	}
	return 0, errorf(ErrSymbolNotFound, "symbol %q not found in line %q", symbol, clip(line))
}

// wholeWord reports whether line[start:end] is not glued to a word
// character on either side. A side where the symbol itself ends in a
// non-word character needs no boundary.
func wholeWord(line string, start, end int) bool {
	if r, _ := utf8.DecodeRuneInString(line[start:]); isWord(r) && start > 0 {
		if p, _ := utf8.DecodeLastRuneInString(line[:start]); isWord(p) {
			return false
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(line[:end]); isWord(r) && end < len(line) {
		if n, _ := utf8.DecodeRuneInString(line[end:]); isWord(n) {
			return false
		}
	}
	return true
}

func isWord(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// clip cuts s to at most maxQuoted bytes, on a character boundary, marking
// a cut with "...".
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
