package textpos

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// bom is the UTF-8 byte-order mark. A file that starts with one holds it
// in the text its servers are sent, and they count it as the first
// character of line 1; an editor does not show it, so its columns of line
// 1 start after it (column 1 is the character after the mark).
const bom = "\uFEFF"

// shown is line s (0-based number n) as an editor shows it, and the units
// of enc it leaves out: a leading BOM of the first line.
func shown(s string, n int, enc Encoding) (string, int) {
	if n == 0 && strings.HasPrefix(s, bom) {
		return s[len(bom):], width('\uFEFF', len(bom), enc)
	}
	return s, 0
}

// Units converts column col (0-based) of line, counted in the units of
// from, to the units of to. The end of the line (col equal to the line's
// length) is valid. A column past the end wraps ErrPastEnd ("textpos:
// column 50 is past the end of line (40 characters)", 1-based, counted in
// from's units); a column inside a character wraps ErrMidCharacter; a
// negative column wraps ErrNegative.
func Units(line string, col int, from, to Encoding) (int, error) {
	return convert(line, col, from, to, 0)
}

// convert is Units with the 1-based number of the line for messages, 0
// when unknown.
func convert(line string, col int, from, to Encoding, line1 int) (int, error) {
	if col < 0 {
		return 0, errorf(ErrNegative, "negative column %d", col)
	}
	f, t := 0, 0
	for i := 0; i < len(line) && f < col; {
		r, size := utf8.DecodeRuneInString(line[i:])
		wf := width(r, size, from)
		if col < f+wf {
			return 0, errorf(ErrMidCharacter, "column %d%s is inside the character %q, which spans %s %d to %d",
				col+1, onLine(line1), line[i:i+size], unitName(from, 2), f+1, f+wf)
		}
		f += wf
		t += width(r, size, to)
		i += size
	}
	if f < col {
		return 0, errorf(ErrPastEnd, "column %d is past the end of line%s (%d %s)",
			col+1, number(line1), f, unitName(from, f))
	}
	return t, nil
}

// onLine is " on line n" for messages, or "" when n is unknown (0).
func onLine(n int) string {
	if n == 0 {
		return ""
	}
	return " on line" + number(n)
}

// number is " n" for messages, or "" when n is unknown (0).
func number(n int) string {
	if n == 0 {
		return ""
	}
	return " " + strconv.Itoa(n)
}

// FromEditor converts a 1-based editor line and column (counted in
// characters) to a 0-based LSP line and character counted in to. Errors
// name the problem: a line or column below 1 (ErrNegative), a line past the
// end of text or a column past the end of its line (ErrPastEnd; the column
// just after the last character is valid).
func FromEditor(text string, line1, col1 int, to Encoding) (line, char int, err error) {
	return fromEditor(func(n int) (string, error) { return Line(text, n) }, line1, col1, to)
}

// fromEditor is FromEditor with line returning a line of the text.
func fromEditor(lineOf func(int) (string, error), line1, col1 int, to Encoding) (line, char int, err error) {
	if line1 < 1 {
		return 0, 0, errorf(ErrNegative, "line %d is before the first line (editor lines start at 1)", line1)
	}
	if col1 < 1 {
		return 0, 0, errorf(ErrNegative, "column %d is before the first column (editor columns start at 1)", col1)
	}
	s, err := lineOf(line1 - 1)
	if err != nil {
		return 0, 0, err
	}
	s, hidden := shown(s, line1-1, to)
	char, err = convert(s, col1-1, UTF32, to, line1)
	if err != nil {
		return 0, 0, err
	}
	return line1 - 1, hidden + char, nil
}

// ToEditor converts a 0-based LSP line and character counted in from to
// the 1-based line and column (in characters) an editor shows. A character
// past the end of the line is clamped to the line's end, since servers send
// end-of-line positions; a line past the end of text, a negative argument
// or a character inside a code point is an error, as for FromEditor.
func ToEditor(text string, line, char int, from Encoding) (line1, col1 int, err error) {
	if char < 0 {
		return 0, 0, errorf(ErrNegative, "negative character %d", char)
	}
	s, err := Line(text, line)
	if err != nil {
		return 0, 0, err
	}
	return toEditor(s, line, char, from)
}

// toEditor converts char (in from units, clamped to the line) of line s,
// which is line number line, to 1-based editor numbers (a position on a
// leading BOM is column 1).
func toEditor(s string, line, char int, from Encoding) (line1, col1 int, err error) {
	s, hidden := shown(s, line, from)
	char = max(char-hidden, 0)
	col, err := convert(s, min(char, Len(s, from)), from, UTF32, line+1)
	if err != nil {
		return 0, 0, err
	}
	return line + 1, col + 1, nil
}

// Offset returns the byte offset in text of the 0-based LSP position (line,
// char), char counted in enc. Errors are those of Line and Units: nothing
// is clamped.
func Offset(text string, line, char int, enc Encoding) (int, error) {
	start, end, err := lineBounds(text, line)
	if err != nil {
		return 0, err
	}
	b, err := convert(text[start:end], char, enc, UTF8, line+1)
	if err != nil {
		return 0, err
	}
	return start + b, nil
}

// Check reports a 0-based LSP position (char counted in enc) past the end
// of its line or of the text (wrapping ErrPastEnd), or inside a character
// (ErrMidCharacter).
func Check(text string, line, char int, enc Encoding) error {
	return check(func(n int) (string, error) { return Line(text, n) }, line, char, enc)
}

// check is Check with line returning a line of the text.
func check(lineOf func(int) (string, error), line, char int, enc Encoding) error {
	l, err := lineOf(line)
	if err != nil {
		return err
	}
	if _, err = Units(l, char, enc, enc); err != nil {
		return fmt.Errorf("line %d: %w", line+1, err)
	}
	return nil
}
