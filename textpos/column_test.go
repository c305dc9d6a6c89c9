package textpos

import (
	"errors"
	"testing"
)

func TestUnits(t *testing.T) {
	tests := []struct {
		line     string
		col      int
		from, to Encoding
		want     int
		wantErr  string
	}{
		{"hello", 3, UTF16, UTF8, 3, ""},
		{"hello", 5, UTF32, UTF16, 5, ""},
		{"", 0, UTF16, UTF8, 0, ""},
		// é: 2 bytes, 1 UTF-16 unit.
		{"café!", 4, UTF16, UTF8, 5, ""},
		{"café!", 5, UTF8, UTF16, 4, ""},
		{"café!", 4, UTF8, UTF16, 0, `textpos: column 5 is inside the character "é", which spans bytes 4 to 5`},
		{"café!", 5, UTF32, UTF8, 6, ""},
		// 😀: 4 bytes, 2 UTF-16 units, 1 code point.
		{"x😀y", 3, UTF16, UTF8, 5, ""},
		{"x😀y", 3, UTF16, UTF32, 2, ""},
		{"x😀y", 2, UTF32, UTF16, 3, ""},
		{"x😀y", 2, UTF16, UTF8, 0, `textpos: column 3 is inside the character "😀", which spans UTF-16 code units 2 to 3`},
		{"x😀y", 3, UTF8, UTF16, 0, `textpos: column 4 is inside the character "😀", which spans bytes 2 to 5`},
		{"x😀y", 4, UTF16, UTF8, 6, ""},
		// CJK: 3 bytes, 1 UTF-16 unit each.
		{"日本語", 2, UTF16, UTF8, 6, ""},
		{"日本語", 9, UTF8, UTF32, 3, ""},
		// Past the end and negative.
		{"hello", 6, UTF16, UTF8, 0, "textpos: column 7 is past the end of line (5 UTF-16 code units)"},
		{"x😀y", 7, UTF8, UTF16, 0, "textpos: column 8 is past the end of line (6 bytes)"},
		{"é", 2, UTF32, UTF16, 0, "textpos: column 3 is past the end of line (1 character)"},
		{"abc", -1, UTF16, UTF8, 0, "textpos: negative column -1"},
		// Invalid UTF-8 counts one unit per byte.
		{"a\xffb", 2, UTF16, UTF8, 2, ""},
	}
	for _, tt := range tests {
		got, err := Units(tt.line, tt.col, tt.from, tt.to)
		if msg := errString(err); got != tt.want || msg != tt.wantErr {
			t.Errorf("Units(%q, %d, %s, %s) = %d, %q, want %d, %q",
				tt.line, tt.col, tt.from, tt.to, got, msg, tt.want, tt.wantErr)
		}
	}
}

func TestUnitsErrorsMatch(t *testing.T) {
	tests := []struct {
		col  int
		from Encoding
		want error
	}{
		{9, UTF32, ErrPastEnd},
		{2, UTF16, ErrMidCharacter},
		{-3, UTF8, ErrNegative},
	}
	for _, tt := range tests {
		if _, err := Units("x😀y", tt.col, tt.from, UTF8); !errors.Is(err, tt.want) {
			t.Errorf("Units(%d, %s) = %v, want %v", tt.col, tt.from, err, tt.want)
		}
	}
}

const mixed = "package main\r\n\r\nvar café = \"😀 日本\"\rx := 1\n"

func TestFromEditor(t *testing.T) {
	tests := []struct {
		line1, col1 int
		to          Encoding
		line, char  int
		wantErr     string
	}{
		{1, 1, UTF16, 0, 0, ""},
		{1, 13, UTF16, 0, 12, ""},
		{2, 1, UTF8, 1, 0, ""},
		{3, 10, UTF8, 2, 10, ""},  // after "café" (é is 2 bytes)
		{3, 13, UTF16, 2, 12, ""}, // the emoji
		{3, 14, UTF16, 2, 14, ""}, // after the emoji (2 units)
		{3, 14, UTF8, 2, 17, ""},  // after the emoji (4 bytes)
		{3, 15, UTF8, 2, 18, ""},  // 日
		{3, 18, UTF32, 2, 17, ""}, // end of line 3
		{4, 7, UTF16, 3, 6, ""},   // end of line 4
		{5, 1, UTF16, 4, 0, ""},   // the empty line after the final newline
		{6, 1, UTF16, 0, 0, "textpos: line 6 is past the end of the file (4 lines)"},
		{3, 19, UTF16, 0, 0, "textpos: column 19 is past the end of line 3 (17 characters)"},
		{0, 1, UTF16, 0, 0, "textpos: line 0 is before the first line (editor lines start at 1)"},
		{-4, 1, UTF16, 0, 0, "textpos: line -4 is before the first line (editor lines start at 1)"},
		{1, 0, UTF16, 0, 0, "textpos: column 0 is before the first column (editor columns start at 1)"},
	}
	for _, tt := range tests {
		line, char, err := FromEditor(mixed, tt.line1, tt.col1, tt.to)
		if msg := errString(err); line != tt.line || char != tt.char || msg != tt.wantErr {
			t.Errorf("FromEditor(%d, %d, %s) = %d, %d, %q, want %d, %d, %q",
				tt.line1, tt.col1, tt.to, line, char, msg, tt.line, tt.char, tt.wantErr)
		}
	}
}

func TestToEditor(t *testing.T) {
	tests := []struct {
		line, char  int
		from        Encoding
		line1, col1 int
		wantErr     string
	}{
		{0, 0, UTF16, 1, 1, ""},
		{2, 14, UTF16, 3, 14, ""},
		{2, 17, UTF8, 3, 14, ""},
		{2, 12, UTF32, 3, 13, ""},
		{2, 100, UTF16, 3, 18, ""}, // clamped to the end of the line
		{4, 0, UTF16, 5, 1, ""},
		{4, 7, UTF16, 5, 1, ""},
		{2, 13, UTF16, 0, 0, `textpos: column 14 on line 3 is inside the character "😀", which spans UTF-16 code units 13 to 14`},
		{5, 0, UTF16, 0, 0, "textpos: line 6 is past the end of the file (4 lines)"},
		{0, -1, UTF16, 0, 0, "textpos: negative character -1"},
		{-1, 0, UTF16, 0, 0, "textpos: negative line -1"},
	}
	for _, tt := range tests {
		line1, col1, err := ToEditor(mixed, tt.line, tt.char, tt.from)
		if msg := errString(err); line1 != tt.line1 || col1 != tt.col1 || msg != tt.wantErr {
			t.Errorf("ToEditor(%d, %d, %s) = %d, %d, %q, want %d, %d, %q",
				tt.line, tt.char, tt.from, line1, col1, msg, tt.line1, tt.col1, tt.wantErr)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	texts := []string{"", "abc", "café\r\nx😀y\r日本語\n", "\n\n", "a\xffb\n😀"}
	for _, text := range texts {
		for line1 := 1; line1 <= 6; line1++ {
			s, err := Line(text, line1-1)
			if err != nil {
				continue
			}
			for col1 := 1; col1 <= Len(s, UTF32)+1; col1++ {
				for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
					checkRoundTrip(t, text, line1, col1, enc)
				}
			}
		}
	}
}

// checkRoundTrip checks that the editor position (line1, col1), valid in
// text, survives FromEditor then ToEditor in enc, and that Offset agrees.
func checkRoundTrip(t *testing.T, text string, line1, col1 int, enc Encoding) {
	t.Helper()
	line, char, err := FromEditor(text, line1, col1, enc)
	if err != nil {
		t.Fatalf("FromEditor(%q, %d, %d, %s) = %v", text, line1, col1, enc, err)
	}
	l1, c1, err := ToEditor(text, line, char, enc)
	if err != nil || l1 != line1 || c1 != col1 {
		t.Fatalf("ToEditor(FromEditor(%q, %d, %d, %s)) = %d, %d, %v", text, line1, col1, enc, l1, c1, err)
	}
	off, err := Offset(text, line, char, enc)
	if err != nil {
		t.Fatalf("Offset(%q, %d, %d, %s) = %v", text, line, char, enc, err)
	}
	_, c32, _ := FromEditor(text, line1, col1, UTF32) // col1-1, and 1 more after a leading BOM
	want, _ := Offset(text, line, c32, UTF32)
	if off != want {
		t.Fatalf("Offset(%q, %d, %d, %s) = %d, want %d", text, line, char, enc, off, want)
	}
}

func TestOffset(t *testing.T) {
	tests := []struct {
		line, char int
		enc        Encoding
		want       int
		wantErr    string
	}{
		{0, 0, UTF16, 0, ""},
		{0, 12, UTF16, 12, ""},
		{1, 0, UTF16, 14, ""}, // after "\r\n"
		{2, 0, UTF16, 16, ""},
		{2, 18, UTF16, 16 + 25, ""},
		{2, 25, UTF8, 16 + 25, ""},
		{2, 14, UTF16, 16 + 17, ""},
		{3, 0, UTF8, 16 + 26, ""}, // after the "\r" ending line 3
		{4, 0, UTF8, len(mixed), ""},
		{4, 1, UTF8, 0, "textpos: column 2 is past the end of line 5 (0 bytes)"},
		{2, 13, UTF16, 0, `textpos: column 14 on line 3 is inside the character "😀", which spans UTF-16 code units 13 to 14`},
		{9, 0, UTF16, 0, "textpos: line 10 is past the end of the file (4 lines)"},
	}
	for _, tt := range tests {
		got, err := Offset(mixed, tt.line, tt.char, tt.enc)
		if msg := errString(err); got != tt.want || msg != tt.wantErr {
			t.Errorf("Offset(%d, %d, %s) = %d, %q, want %d, %q",
				tt.line, tt.char, tt.enc, got, msg, tt.want, tt.wantErr)
		}
	}
}

// TestBOM: a leading byte-order mark is a character of line 1 for the
// servers (it is in their text) and none for an editor, which hides it:
// editor column 9 of "<BOM>package main" is the "m" of main, LSP character 9
// in UTF-16 and 11 in UTF-8 bytes; a mark anywhere else is an ordinary
// character; a position on the mark itself shows as column 1.
func TestBOM(t *testing.T) {
	text := bom + "package main\nx" + bom + "y"
	lines := NewLines(text)
	for _, c := range []struct {
		line1, col1 int
		enc         Encoding
		line, char  int
	}{
		{1, 9, UTF16, 0, 9}, {1, 9, UTF8, 0, 11}, {1, 1, UTF16, 0, 1}, {1, 13, UTF16, 0, 13},
		{2, 3, UTF16, 1, 2}, {2, 3, UTF8, 1, 4},
	} {
		for name, from := range map[string]func(int, int, Encoding) (int, int, error){
			"FromEditor":       func(l, c int, e Encoding) (int, int, error) { return FromEditor(text, l, c, e) },
			"Lines.FromEditor": lines.FromEditor,
		} {
			line, char, err := from(c.line1, c.col1, c.enc)
			if err != nil || line != c.line || char != c.char {
				t.Errorf("%s(%d:%d, %s) = %d, %d, %v; want %d, %d", name, c.line1, c.col1, c.enc, line, char, err, c.line, c.char)
			}
		}
		for name, to := range map[string]func(int, int, Encoding) (int, int, error){
			"ToEditor":       func(l, c int, e Encoding) (int, int, error) { return ToEditor(text, l, c, e) },
			"Lines.ToEditor": lines.ToEditor,
		} {
			line1, col1, err := to(c.line, c.char, c.enc)
			if err != nil || line1 != c.line1 || col1 != c.col1 {
				t.Errorf("%s(%d:%d, %s) = %d, %d, %v; want %d, %d", name, c.line, c.char, c.enc, line1, col1, err, c.line1, c.col1)
			}
		}
	}
	if line1, col1, err := ToEditor(text, 0, 0, UTF16); err != nil || line1 != 1 || col1 != 1 {
		t.Errorf("ToEditor of the mark itself = %d:%d, %v; want 1:1", line1, col1, err)
	}
	if _, _, err := FromEditor(text, 1, 14, UTF16); !errors.Is(err, ErrPastEnd) {
		t.Errorf("FromEditor(1:14) = %v, want past the end (the line shows 12 characters)", err)
	}
}
