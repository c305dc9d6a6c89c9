package main

import "testing"

func TestSafeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain é 日本 ✓", "plain é 日本 ✓"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"nul\x00 cr\r bell\a del\x7f", `nul\x00 cr\r bell\a del\x7f`},
		{"csi\u009b2J nel\u0085", `csi\u009b2J nel\u0085`},
		{"bad\xffutf8\xc2", `bad\xffutf8\xc2`},
		{`back\slash`, `back\slash`},
		{"replacement \uFFFD kept", "replacement \uFFFD kept"},
	}
	for _, tt := range tests {
		if got := safeText(tt.in); got != tt.want {
			t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
