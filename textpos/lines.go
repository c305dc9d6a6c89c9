package textpos

import "strings"

// Lines is a text with its line starts indexed once, for converting many
// positions in one text: each conversion costs the length of its line,
// not of the text before it (a document's outline converts hundreds).
type Lines struct {
	text  string
	start []int // byte offset of each line; one more line than terminators
	cr    bool  // text has a '\r' (indexBreak)
}

// NewLines indexes text's lines, with the terminators Line takes.
func NewLines(text string) *Lines {
	// One allocation for the starts when lines end in "\n" (growing it
	// line by line took seven for a file of 60 lines).
	l := &Lines{text: text, start: make([]int, 1, strings.Count(text, "\n")+1), cr: hasCR(text)}
	for i := 0; ; {
		j := indexBreak(text[i:], l.cr)
		if j < 0 {
			return l
		}
		i += j + terminatorLen(text, i+j)
		l.start = append(l.start, i)
	}
}

// Line returns line n (0-based) without its terminator, with Line's
// errors.
func (l *Lines) Line(n int) (string, error) {
	if n < 0 || n >= len(l.start) {
		return Line(l.text, n) // the error, as Line words it
	}
	s := l.text[l.start[n]:]
	if j := indexBreak(s, l.cr); j >= 0 {
		s = s[:j]
	}
	return s, nil
}

// EditorLine is line n (0-based) as an editor shows it, the line whose
// characters FromEditor's columns count: without a leading BOM on the
// first line. Errors are Line's.
func (l *Lines) EditorLine(n int) (string, error) {
	s, err := l.Line(n)
	s, _ = shown(s, n, UTF32)
	return s, err
}

// ToEditor is ToEditor on the indexed text.
func (l *Lines) ToEditor(line, char int, from Encoding) (line1, col1 int, err error) {
	if char < 0 {
		return 0, 0, errorf(ErrNegative, "negative character %d", char)
	}
	s, err := l.Line(line)
	if err != nil {
		return 0, 0, err
	}
	return toEditor(s, line, char, from)
}

// FromEditor is FromEditor on the indexed text.
func (l *Lines) FromEditor(line1, col1 int, to Encoding) (line, char int, err error) {
	return fromEditor(l.Line, line1, col1, to)
}

// Check is Check on the indexed text.
func (l *Lines) Check(line, char int, enc Encoding) error { return check(l.Line, line, char, enc) }

// Text returns the indexed text.
func (l *Lines) Text() string { return l.text }
