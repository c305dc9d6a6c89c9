package config

// stripJSONC turns JSON with comments (// and /* */) and trailing commas
// into JSON, in a new slice. Everything removed becomes a space (newlines
// are kept), so that byte offsets, lines and columns stay those of the
// original. Strings are left alone.
func stripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	comma := -1 // a comma outside strings not yet followed by a value
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			i = skipString(out, i)
			comma = -1
		case c == '/' && i+1 < len(out) && (out[i+1] == '/' || out[i+1] == '*'):
			i = blankComment(out, i)
		case c == ',':
			comma = i
		case c == '}' || c == ']':
			if comma >= 0 {
				out[comma] = ' '
			}
			comma = -1
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			comma = -1
		}
	}
	return out
}

// skipString returns the index of the quote that closes the string opened
// at i, or the last index if it is not closed.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b) - 1
}

// blankComment blanks the comment starting at i and returns the index of
// its last byte.
func blankComment(b []byte, i int) int {
	block := b[i+1] == '*'
	var prev byte
	for j := i; j < len(b); j++ {
		c := b[j]
		if !block && c == '\n' {
			return j - 1
		}
		if c != '\n' {
			b[j] = ' '
		}
		if block && j >= i+3 && prev == '*' && c == '/' {
			return j
		}
		prev = c
	}
	return len(b) - 1
}
