package textpos

import "strings"

// Line returns line n (0-based) of text without its terminator. A line
// past the end is an error wrapping ErrPastEnd, such as "textpos: line 12
// is past the end of the file (10 lines)" (1-based numbers); a negative n
// wraps ErrNegative.
func Line(text string, n int) (string, error) {
	start, end, err := lineBounds(text, n)
	if err != nil {
		return "", err
	}
	return text[start:end], nil
}

// lineBounds returns the byte offsets of line n of text, end excluding the
// terminator.
func lineBounds(text string, n int) (start, end int, err error) {
	if n < 0 {
		return 0, 0, errorf(ErrNegative, "negative line %d", n)
	}
	cr := hasCR(text)
	for range n {
		j := indexBreak(text[start:], cr)
		if j < 0 {
			k := countLines(text)
			return 0, 0, errorf(ErrPastEnd, "line %d is past the end of the file (%d %s)",
				n+1, k, plural(k, "line"))
		}
		start += j + terminatorLen(text, start+j)
	}
	end = len(text)
	if j := indexBreak(text[start:], cr); j >= 0 {
		end = start + j
	}
	return start, end, nil
}

// indexBreak is strings.IndexAny(s, "\r\n") for a text that has a '\r'
// (cr), which tests every byte against a set; for the others (most source
// text) it is strings.IndexByte(s, '\n'), vectorized and ten times as fast.
// Callers find cr once per text (hasCR): deciding per line would scan the
// rest of a '\r'-only text for a '\n' at every line.
func indexBreak(s string, cr bool) int {
	if cr {
		return strings.IndexAny(s, "\r\n")
	}
	return strings.IndexByte(s, '\n')
}

// hasCR reports whether text has a '\r': see indexBreak.
func hasCR(text string) bool { return strings.IndexByte(text, '\r') >= 0 }

// terminatorLen is the length of the line terminator at text[i], which is
// '\r' or '\n'.
func terminatorLen(text string, i int) int {
	if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
		return 2
	}
	return 1
}

// countLines is the number of lines people count in text: one per
// terminator, plus one for a last line without terminator. The empty line
// after a final terminator does not count.
func countLines(text string) int {
	n := strings.Count(text, "\n") + strings.Count(text, "\r") - strings.Count(text, "\r\n")
	if text != "" && !strings.HasSuffix(text, "\n") && !strings.HasSuffix(text, "\r") {
		n++
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
