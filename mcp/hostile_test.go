package mcp_test

import (
	"strings"
	"testing"
)

// TestHostilePaths: paths far longer than the platform's limit are refused
// at once, in few words: 50 paths of 64 KB (3.2 MB of input) give an error
// of a few KB (it was 6.5 MB, after 166 s), and the server keeps serving.
func TestHostilePaths(t *testing.T) {
	c := connect(t, "gonav", goplsConfig(t))
	long := strings.Repeat("a/", 32<<10)
	files := make([]string, 50)
	for i := range files {
		files[i] = long + string(rune('a'+i%26)) + ".go"
	}
	res := c.call(t, "diagnostics", args{"files": files})
	text := resultText(t, res)
	if !res.IsError || !strings.Contains(text, "invalid path") || !strings.Contains(text, "longer than the limit") {
		t.Fatalf("diagnostics of 50 long paths = %.300q, want a tool error naming the limit", text)
	}
	if len(text) > 64<<10 {
		t.Errorf("the error is %d bytes: it quotes the paths instead of naming them", len(text))
	}
	res = c.call(t, "lsp", args{"operation": "hover", "filePath": long, "line": 1, "character": 1})
	if text := resultText(t, res); !res.IsError || len(text) > 4<<10 {
		t.Errorf("hover of a long path = %d bytes, error %v; want a short tool error", len(text), res.IsError)
	}
}
