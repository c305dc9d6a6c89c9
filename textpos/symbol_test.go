package textpos

import (
	"errors"
	"strings"
	"testing"
)

func TestSymbolColumn(t *testing.T) {
	tests := []struct {
		line, symbol string
		want         int
		wantErr      string
	}{
		{"func Foo() {}", "Foo", 5, ""},
		{"x := FooBar + Foo", "Foo", 14, ""}, // whole word beats the earlier prefix
		{"x := FooBar", "Foo", 0, `textpos: symbol "Foo" occurs only inside longer words in line "x := FooBar"`},
		{"func Greeting(name string) string", "tring", 0, `textpos: symbol "tring" occurs only inside longer words in line "func Greeting(name string) string"`},
		{"x := naïveté + té", "té", 15, ""},       // letters of any script are word characters
		{"v := x2 + x", "x", 10, ""},              // so are digits
		{"my_foo := foo_bar(foo)", "foo", 18, ""}, // '_' is a word character
		{"let $el = el; el.x", "el", 10, ""},      // '$' is a word character (JavaScript)
		{"const café = 1; fé", "fé", 16, ""},      // columns count characters
		{"s := \"😀\" + 日本 + 本", "本", 16, ""},      // after an emoji; not the 本 of 日本
		{"print(日本語)", "日本語", 6, ""},
		{"a.b(a)", "a", 0, ""},
		{"x == y", "==", 2, ""}, // non-word symbols need no boundary
		{"int operator+(int)", "operator+", 4, ""},
		{"Foo", "Foo", 0, ""},
		{"x := 1", "y", 0, `textpos: symbol "y" not found in line "x := 1"`},
		{"x := 1", "", 0, "textpos: empty symbol"},
		// Spaces around a name are no part of it: " target" found the
		// space before target, and the server had nothing there.
		{"x := target(); _ = x", " target", 5, ""},
		{"x := target(); _ = x", "target\n", 5, ""},
		{"x := 1", " \t", 0, "textpos: empty symbol"},
	}
	for _, tt := range tests {
		got, err := SymbolColumn(tt.line, tt.symbol)
		if msg := errString(err); got != tt.want || msg != tt.wantErr {
			t.Errorf("SymbolColumn(%q, %q) = %d, %q, want %d, %q", tt.line, tt.symbol, got, msg, tt.want, tt.wantErr)
		}
	}
}

func TestSymbolColumnNotFound(t *testing.T) {
	line := strings.Repeat("é", 100)
	_, err := SymbolColumn(line, "x")
	if !errors.Is(err, ErrSymbolNotFound) {
		t.Fatalf("SymbolColumn(long line) = %v, want ErrSymbolNotFound", err)
	}
	want := `textpos: symbol "x" not found in line "` + strings.Repeat("é", 60) + `..."`
	if err.Error() != want {
		t.Errorf("SymbolColumn(long line) = %q, want %q", err, want)
	}
}
