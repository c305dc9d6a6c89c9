package textpos

import (
	"strings"
	"testing"
)

func TestPosition(t *testing.T) {
	tests := []struct {
		text       string
		off        int
		line, char int
	}{
		{"", 0, 0, 0},
		{"ab\ncd", 4, 1, 1},
		{"ab\rcd", 4, 1, 1},   // a lone CR ends a line too
		{"ab\r\ncd", 5, 1, 1}, // CRLF is one terminator
		{"ab\r\ncd", 3, 0, 2}, // between CR and LF: end of line 0
		{"a😀b\nx", 5, 0, 3},   // surrogate pair: 2 UTF-16 units
		{"\r\r\n\n", 4, 3, 0}, // CR, CRLF, LF
		{"x\r", 2, 1, 0},      // after a final CR: the empty last line
	}
	for _, tt := range tests {
		line, char := Position(tt.text, tt.off, UTF16)
		if line != tt.line || char != tt.char {
			t.Errorf("Position(%q, %d) = %d:%d, want %d:%d", tt.text, tt.off, line, char, tt.line, tt.char)
		}
	}
}

// apply applies e (UTF-16 positions) to old, as a server would.
func apply(t *testing.T, old string, e Edit) string {
	t.Helper()
	start, err := Offset(old, e.StartLine, e.StartChar, UTF16)
	if err != nil {
		t.Fatalf("start %d:%d of %q: %v", e.StartLine, e.StartChar, old, err)
	}
	end, err := Offset(old, e.EndLine, e.EndChar, UTF16)
	if err != nil {
		t.Fatalf("end %d:%d of %q: %v", e.EndLine, e.EndChar, old, err)
	}
	return old[:start] + e.Text + old[end:]
}

func TestChangeRoundTrip(t *testing.T) {
	pairs := [][2]string{
		{"", "x"},
		{"abc", "abc"},
		{"package a\n\nfunc F() {}\n", "package a\n\nfunc F(x int) {}\n"},
		{"a\r\nb\r\n", "a\r\nc\r\n"},
		{"a\rb\rc", "a\rB\rc"}, // lone CRs: the bug of the old line counting
		{"a\r\nb", "a\nb"},     // CRLF to LF: never split the pair
		{"a\nb", "a\r\nb"},
		{"x😀y", "x😁y"}, // a change inside a 4-byte character
		{"héllo\rwörld", "héllo\rwörld!"},
	}
	for _, p := range pairs {
		e := Change(p[0], p[1], UTF16)
		if got := apply(t, p[0], e); got != p[1] {
			t.Errorf("Change(%q, %q) = %+v, which gives %q", p[0], p[1], e, got)
		}
	}
}

func FuzzChange(f *testing.F) {
	f.Add("a\r\nb", "a\rb")
	f.Add("x😀y\n", "x\r\ny")
	f.Fuzz(func(t *testing.T, old, new string) {
		if !validUTF8(old) || !validUTF8(new) {
			return
		}
		e := Change(old, new, UTF16)
		if got := apply(t, old, e); got != new {
			t.Fatalf("Change(%q, %q) = %+v, which gives %q", old, new, e, got)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
