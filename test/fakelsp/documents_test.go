package fakelsp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// change builds a ranged content change.
func change(l1, c1, l2, c2 int, text string) map[string]any {
	return map[string]any{
		"range": map[string]any{
			"start": map[string]any{"line": l1, "character": c1},
			"end":   map[string]any{"line": l2, "character": c2},
		},
		"text": text,
	}
}

func TestIncrementalChangeNonASCII(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		encodings []string
		x         int // column of the x after the marker
		end       int // column of the end of the final line
	}{
		// "héllo 😀 ERROR: " is 16 UTF-16 units and 19 bytes.
		{"utf-16", nil, nil, 16, 18},
		{"utf-8", []string{"--position-encoding", "utf-8"}, []string{"utf-8"}, 19, 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, tt.args...)
			c.initialize(tt.encodings...)
			c.open(1, "hello\nworld\n")
			c.awaitPush()
			c.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": uriA, "version": 2},
				"contentChanges": []any{
					change(1, 0, 1, 5, "héllo 😀 ERROR: x"),
					change(1, tt.x, 1, tt.x+1, "yz"),
					change(0, 0, 1, 0, ""),
				},
			})
			resp := c.call("fake/documentText", map[string]any{"uri": uriA})
			want := `{"languageId":"go","text":"héllo 😀 ERROR: yz\n","version":2}`
			if string(resp.Result) != want {
				t.Errorf("fake/documentText = %s, want %s", resp.Result, want)
			}
			start := tt.end - len("ERROR: yz")
			wantPush := publishParams{URI: uriA, Version: versionOf(2), Diagnostics: []diagnostic{diag(0, start, tt.end, "E1", "yz")}}
			if diff := cmp.Diff(wantPush, c.awaitPush()); diff != "" {
				t.Errorf("push after change (-want +got):\n%s", diff)
			}
			c.shutdownExit()
		})
	}
}

func TestChangePastEndIsClamped(t *testing.T) {
	c := start(t)
	c.initialize()
	c.open(1, "ab\ncd")
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uriA, "version": 2},
		"contentChanges": []any{change(0, 1, 9, 0, "Z")},
	})
	resp := c.call("fake/documentText", map[string]any{"uri": uriA})
	if want := `{"languageId":"go","text":"aZ","version":2}`; string(resp.Result) != want {
		t.Errorf("fake/documentText = %s, want %s", resp.Result, want)
	}
	if !strings.Contains(c.stderr.String(), "past the end") {
		t.Errorf("stderr has no error for a range past the end:\n%s", c.stderr)
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uriA}})
	if code := c.errorCode(c.call("fake/documentText", map[string]any{"uri": uriA})); code != codeInvalidParams {
		t.Errorf("fake/documentText after close: code %d, want %d", code, codeInvalidParams)
	}
	c.shutdownExit()
}

func TestOffsetOf(t *testing.T) {
	const text = "a😀b\r\nxy\rz\n"
	tests := []struct {
		p       position
		utf8    bool
		want    int
		wantErr bool
	}{
		{position{0, 0}, false, 0, false},
		{position{0, 1}, false, 1, false},
		{position{0, 2}, false, 1, true}, // inside the surrogate pair
		{position{0, 3}, false, 5, false},
		{position{0, 4}, false, 6, false},
		{position{0, 5}, false, 6, true},
		{position{0, 5}, true, 5, false},
		{position{1, 1}, false, 9, false},
		{position{2, 0}, false, 11, false},
		{position{3, 0}, false, 13, false},
		{position{4, 0}, false, 13, true},
	}
	for _, tt := range tests {
		got, err := offsetOf(text, tt.p, tt.utf8)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("offsetOf(%q, %v, utf8=%v) = %d, %v; want %d, error %v", text, tt.p, tt.utf8, got, err, tt.want, tt.wantErr)
		}
	}
}
