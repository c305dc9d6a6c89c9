package textpos

import (
	"fmt"
	"testing"
)

// checkLines checks that the indexed text answers line n, and the
// conversions on it, exactly as the functions on the whole text do.
func checkLines(t *testing.T, l *Lines, text string, n int) {
	t.Helper()
	want, wantErr := Line(text, n)
	got, err := l.Line(n)
	if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("Lines(%q).Line(%d) = %q, %v; Line says %q, %v", text, n, got, err, want, wantErr)
	}
	for _, char := range []int{-1, 0, 1, 2, 5, 100} {
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			if werr, gerr := Check(text, n, char, enc), l.Check(n, char, enc); fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("Lines(%q).Check(%d, %d, %s) = %v; Check says %v", text, n, char, enc, gerr, werr)
			}
			wl, wc, werr := FromEditor(text, n+1, char+1, enc)
			gl, gc, gerr := l.FromEditor(n+1, char+1, enc)
			if gl != wl || gc != wc || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("Lines(%q).FromEditor(%d, %d, %s) = %d, %d, %v; FromEditor says %d, %d, %v",
					text, n+1, char+1, enc, gl, gc, gerr, wl, wc, werr)
			}
			wl, wc, werr = ToEditor(text, n, char, enc)
			gl, gc, gerr = l.ToEditor(n, char, enc)
			if gl != wl || gc != wc || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("Lines(%q).ToEditor(%d, %d, %s) = %d, %d, %v; ToEditor says %d, %d, %v",
					text, n, char, enc, gl, gc, gerr, wl, wc, werr)
			}
		}
	}
}

func TestLinesAgreeWithLine(t *testing.T) {
	texts := []string{"", "a", "\n", "a\n", "a\nb", "one\ntwo\r\nthree\rfour", "\r\r\n\n", "café\r\nx😀y\r日本語\n",
		"a\xff\xfeb\r\r\n", "trailing\r"}
	for _, text := range texts {
		l := NewLines(text)
		for n := -1; n <= len(text)+1; n++ {
			checkLines(t, l, text, n)
		}
	}
}
