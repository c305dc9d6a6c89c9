package textpos

import (
	"strings"
	"unicode/utf8"
)

// Position returns the 0-based LSP position (line, char counted in enc)
// of byte offset off in text, which must be within [0, len(text)]. Lines
// end in "\n", "\r\n" or "\r", as everywhere in this package; an offset
// between the "\r" and "\n" of a "\r\n" counts as the end of the line.
func Position(text string, off int, enc Encoding) (line, char int) {
	head := text[:off]
	line = strings.Count(head, "\n") + strings.Count(head, "\r") - strings.Count(head, "\r\n")
	start := strings.LastIndexAny(head, "\r\n") + 1
	if strings.HasSuffix(head, "\r") && off < len(text) && text[off] == '\n' {
		// Inside a "\r\n": the end of the line the "\r" ends.
		line--
		start = strings.LastIndexAny(head[:off-1], "\r\n") + 1
		return line, Len(head[start:off-1], enc)
	}
	return line, Len(head[start:], enc)
}

// Edit is the one replacement that turns a text into another: the range
// [Start, End) of the old text, as 0-based LSP positions in the encoding
// Change was given, and the new text for it.
type Edit struct {
	StartLine, StartChar int
	EndLine, EndChar     int
	Text                 string
}

// Change returns the smallest single Edit that turns old into new: the
// common prefix and suffix are kept, cut on character boundaries and never
// between the "\r" and "\n" of a line end, so the range is valid for every
// LSP server whatever line terminators the text uses.
func Change(old, new string, enc Encoding) Edit {
	prefix := commonPrefix(old, new)
	suffix := commonSuffix(old[prefix:], new[prefix:])
	e := Edit{Text: new[prefix : len(new)-suffix]}
	e.StartLine, e.StartChar = Position(old, prefix, enc)
	e.EndLine, e.EndChar = Position(old, len(old)-suffix, enc)
	return e
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	// Back off to the start of a rune both strings share, and out of a
	// "\r\n" (the prefix must not end on its "\r" in either text).
	for i > 0 && (i < len(a) && !utf8.RuneStart(a[i]) || splitsCRLF(a, i) || splitsCRLF(b, i)) {
		i--
	}
	return i
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	// The suffix must start on a rune boundary of a and not inside a "\r\n".
	for i > 0 && (!utf8.RuneStart(a[len(a)-i]) || splitsCRLF(a, len(a)-i) || splitsCRLF(b, len(b)-i)) {
		i--
	}
	return i
}

// splitsCRLF reports whether offset i of s falls between a '\r' and a '\n'.
func splitsCRLF(s string, i int) bool {
	return i > 0 && i < len(s) && s[i-1] == '\r' && s[i] == '\n'
}
