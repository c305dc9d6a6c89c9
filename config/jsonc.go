package config

import "bytes"

// BlankJSONC blanks the comments (// and /* */) of JSONC text, and its
// trailing commas if commas, in a copy: with commas, the result is JSON.
// Line breaks stay, so that offsets, lines and columns are those of text.
// Strings are left alone.
func BlankJSONC(text []byte, commas bool) []byte {
	out := bytes.Clone(text)
	comma := -1 // a comma not yet followed by a value
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			i = stringEnd(out, i)
			comma = -1
		case c == '/' && i+1 < len(out) && (out[i+1] == '/' || out[i+1] == '*'):
			i = blankComment(out, i)
		case c == ',':
			comma = i
		case c == '}' || c == ']':
			if commas && comma >= 0 {
				out[comma] = ' '
			}
			comma = -1
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			comma = -1
		}
	}
	return out
}

// stringEnd is the offset of the quote closing the string opened at i, or
// the last offset.
func stringEnd(b []byte, i int) int {
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

// blankComment blanks the comment starting at i, keeping line breaks, and
// returns the offset of its last byte.
func blankComment(b []byte, i int) int {
	if b[i+1] == '/' {
		for ; i < len(b) && b[i] != '\n' && b[i] != '\r'; i++ {
			b[i] = ' '
		}
		return i - 1
	}
	end := len(b)
	if j := bytes.Index(b[i+2:], []byte("*/")); j >= 0 {
		end = i + 2 + j + 2
	}
	for j := i; j < end; j++ {
		if b[j] != '\n' && b[j] != '\r' {
			b[j] = ' '
		}
	}
	return end - 1
}

// stripJSONC turns JSON with comments and trailing commas into JSON.
func stripJSONC(data []byte) []byte { return BlankJSONC(data, true) }
