package config

import (
	"strings"
	"testing"
)

func TestStripJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{"{/* x\ny */\"a\": 1}", "{    \n    \"a\": 1}"},
		{`{"a": [1, 2,], "b": 3,}`, `{"a": [1, 2 ], "b": 3 }`},
		{"{\"a\": 1, // trailing\n}", "{\"a\": 1" + strings.Repeat(" ", len(", // trailing")) + "\n}"},
		{`{"a": 1, /* c */ }`, `{"a": 1          }`},
		{`{"u": "http://x/*y*/", "v": 1}`, `{"u": "http://x/*y*/", "v": 1}`},
		{`{"s": "a\"//b", "t": ",}"}`, `{"s": "a\"//b", "t": ",}"}`},
		{`{"a": /**/ 1}`, `{"a":      1}`},
		{`{"a": /*/ 1 */ 2}`, `{"a":          2}`},
		{`[1, 2] // end`, `[1, 2]       `},
		{`{"a": 1 /* open`, `{"a": 1        `},
	}
	for _, tt := range tests {
		got := string(stripJSONC([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("stripJSONC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
