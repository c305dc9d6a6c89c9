// Package textpos does position arithmetic between the ways a column can be
// counted. LSP positions are 0-based lines and characters, where a
// character counts UTF-16 code units by default, bytes under the "utf-8"
// position encoding and code points under "utf-32". Editors, and agentlsp's
// MCP tools and CLI, show 1-based lines and columns counted in characters
// (code points).
//
// Lines end in "\n", "\r\n" or "\r", as in LSP. A text with k lines has
// lines 0 to k-1 and, when it ends with a line terminator (or is empty), one
// more empty line k, where a position at its start is valid.
//
// Arguments and results are 0-based, except FromEditor's arguments and
// ToEditor's results, which are the 1-based numbers editors show. Error
// messages are written for people: the line and column numbers they quote
// are 1-based (line 1 is the first line, column 1 is before the first
// character), whatever the function's own convention; negative arguments
// are quoted as given. Bytes that are not valid UTF-8 count as one
// character (and one UTF-16 code unit) each.
//
// The package is a leaf (standard library only) and pure: its functions
// never block, keep no state and are safe for concurrent use.
package textpos

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Encoding is an LSP position encoding: the unit in which a position's
// character counts.
type Encoding string

// The LSP position encodings.
const (
	// UTF16 counts UTF-16 code units, the LSP default.
	UTF16 Encoding = "utf-16"
	// UTF8 counts bytes.
	UTF8 Encoding = "utf-8"
	// UTF32 counts code points (characters).
	UTF32 Encoding = "utf-32"
)

// ParseEncoding returns the encoding named s, as a server announces it in
// its positionEncoding capability (case is ignored); "" and unknown names
// are UTF16, the LSP default.
func ParseEncoding(s string) Encoding {
	switch e := Encoding(strings.ToLower(s)); e {
	case UTF8, UTF32:
		return e
	}
	return UTF16
}

// The errors the package returns wrap one of these; match with errors.Is.
var (
	// ErrPastEnd is a line past the end of the text or a column past the
	// end of its line.
	ErrPastEnd = errors.New("textpos: position past the end")
	// ErrMidCharacter is a column inside a character: between the two
	// halves of a UTF-16 surrogate pair or between the bytes of a UTF-8
	// sequence.
	ErrMidCharacter = errors.New("textpos: position inside a character")
	// ErrNegative is a negative line or column, or a 0 where a 1-based
	// editor number is expected.
	ErrNegative = errors.New("textpos: negative position")
	// ErrSymbolNotFound is a symbol that does not occur in its line.
	ErrSymbolNotFound = errors.New("textpos: symbol not found")
)

// posError is an error of one of the sentinel kinds with its own message,
// so that messages read "textpos: line 12 is past ..." rather than
// repeating the sentinel's text.
type posError struct {
	kind error
	msg  string
}

func (e *posError) Error() string { return "textpos: " + e.msg }
func (e *posError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &posError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// width is how many units of enc the character r, size bytes long in
// UTF-8, counts for. Unknown encodings count as UTF16.
func width(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// unitName names n units of enc, for messages.
func unitName(enc Encoding, n int) string {
	name := "UTF-16 code unit"
	switch enc {
	case UTF8:
		name = "byte"
	case UTF32:
		name = "character"
	}
	if n != 1 {
		name += "s"
	}
	return name
}

// Len returns the length of s counted in the units of enc.
func Len(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += width(r, size, UTF16)
		i += size
	}
	return n
}
