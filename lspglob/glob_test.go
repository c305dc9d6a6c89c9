package lspglob_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentlsp/agentlsp/lspglob"
	"github.com/agentlsp/agentlsp/messages"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		// '*' stays within one segment.
		{"*.go", "a.go", true},
		{"*.go", ".go", true},
		{"*.go", "dir/a.go", false},
		{"*.go", "a.go.txt", false},
		{"a*", "a", true},
		{"*", "", true},
		{"*", "a/b", false},
		// '?' is one character, never '/'.
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "a/c", false},
		{"?.go", "é.go", true},
		// '**' is any number of whole segments, including none.
		{"**", "", true},
		{"**", "a/b/c.go", true},
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "/w/a/b.go", true},
		{"**/*.go", "/w/a/b.go/x", false},
		{"**/*.go", "/w/a/b.gox", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/**", "ab", false},
		{"/w/**/*.go", "/w/x.go", true},
		{"/w/**/*.go", "/w/p/q/x.go", true},
		{"/w/**/*.go", "/v/x.go", false},
		{"**/go.work", "/w/go.work", true},
		{"**/go.work", "/w/sub/go.work", true},
		{"**/go.work", "/w/go.work.sum", false},
		{"**/go.work", "/w/xgo.work", false},
		// '**' that is not a whole segment is '*'.
		{"a**b", "axxb", true},
		{"a**b", "ax/xb", false},
		{"**.go", "a.go", true},
		{"**.go", "a/b.go", false},
		// Braces, with stars and nesting.
		{"**/*.{go,mod,sum,work}", "/w/a/b.go", true},
		{"**/*.{go,mod,sum,work}", "/w/go.mod", true},
		{"**/*.{go,mod,sum,work}", "/w/go.sum", true},
		{"**/*.{go,mod,sum,work}", "/w/go.work", true},
		{"**/*.{go,mod,sum,work}", "/w/go.txt", false},
		{"**/*.{go,mod,sum,work}", "/w/a.gomod", false},
		{"{*.go,*_test.txt}", "a.go", true},
		{"{*.go,*_test.txt}", "a_test.txt", true},
		{"{*.go,*_test.txt}", "a.txt", false},
		{"{**/*.ts,src/*.js}", "a/b/c.ts", true},
		{"{**/*.ts,src/*.js}", "src/a.js", true},
		{"{**/*.ts,src/*.js}", "lib/a.js", false},
		{"{a,b{c,d}}.txt", "bd.txt", true},
		{"{a,b{c,d}}.txt", "b.txt", false},
		{"x{,.bak}", "x", true},
		{"x{,.bak}", "x.bak", true},
		{"a,b", "a,b", true},
		{"a}", "a}", true},
		// Character classes.
		{"[abc].go", "b.go", true},
		{"[abc].go", "d.go", false},
		{"[a-z]1", "q1", true},
		{"[a-z]1", "Q1", false},
		{"[!a].go", "b.go", true},
		{"[!a].go", "a.go", false},
		{"[^a].go", "b.go", true},
		{"[!a]", "/", false},
		{"[]]", "]", true},
		{"[a-]", "-", true},
		{"file[0-9][0-9].txt", "file42.txt", true},
		// Literals, including regexp metacharacters.
		{"a.b", "axb", false},
		{"a+b(c)|d$", "a+b(c)|d$", true},
		{`a\b`, `a\b`, true},
		{"日本/*.go", "日本/x.go", true},
		{"*.GO", "a.go", false},
		// Malformed patterns match nothing.
		{"*.{go,mod", "a.go", false},
		{"[abc", "a", false},
	}
	for _, tt := range tests {
		if got := lspglob.MatchGlob(tt.pattern, tt.path); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestCompileGlobMalformed(t *testing.T) {
	for _, p := range []string{"*.{go,mod", "{a,{b}", "{", "[abc", "[!", "[]", "a[", "[z-a]", "{[a}"} {
		if g, err := lspglob.CompileGlob(p); !errors.Is(err, lspglob.ErrBadGlob) {
			t.Errorf("CompileGlob(%q) = %v, %v; want ErrBadGlob", p, g, err)
		}
	}
	g, err := lspglob.CompileGlob("**/*.go")
	if err != nil || g.String() != "**/*.go" {
		t.Errorf("CompileGlob(**/*.go) = %v, %v", g, err)
	}
}

func TestWatchMatcher(t *testing.T) {
	const (
		created = messages.FileCreated
		changed = messages.FileChanged
		deleted = messages.FileDeleted
	)
	tests := []struct {
		name, opts string
		path       string
		typ        messages.FileChangeType
		want       bool
	}{
		{"gopls relative", goplsOptions, "/w/pkg/a.go", changed, true},
		{"gopls relative mod", goplsOptions, "/w/go.mod", created, true},
		{"gopls relative outside base", goplsOptions, "/v/a.go", changed, false},
		{"gopls relative base prefix only", goplsOptions, "/wx/a.go", changed, false},
		{"gopls other ext", goplsOptions, "/w/a.txt", changed, false},
		{"gopls go.work plain", goplsOptions, "/elsewhere/go.work", deleted, true},
		{"gopls dir pattern", goplsOptions, "/w/pkg", deleted, true},
		{"gopls dir pattern base itself", goplsOptions, "/w", deleted, false},
		{"plain absolute", `{"watchers":[{"globPattern":"**/*.go"}]}`, "/w/a/b.go", changed, true},
		{"plain absolute no star", `{"watchers":[{"globPattern":"*.go"}]}`, "/w/a.go", changed, false},
		{"plain rooted", `{"watchers":[{"globPattern":"/w/**/*.py"}]}`, "/w/x/y.py", created, true},
		{"kind create only: create", kindOptions(1), "/w/a.go", created, true},
		{"kind create only: change", kindOptions(1), "/w/a.go", changed, false},
		{"kind create only: delete", kindOptions(1), "/w/a.go", deleted, false},
		{"kind change+delete: change", kindOptions(6), "/w/a.go", changed, true},
		{"kind change+delete: delete", kindOptions(6), "/w/a.go", deleted, true},
		{"kind change+delete: create", kindOptions(6), "/w/a.go", created, false},
		{"kind 0", kindOptions(0), "/w/a.go", created, false},
		{"default kind is all", `{"watchers":[{"globPattern":"**"}]}`, "/w/a", deleted, true},
		{"workspace folder base", `{"watchers":[{"globPattern":{"baseUri":{"uri":"file:///w/sub","name":"sub"},"pattern":"*.rs"}}]}`, "/w/sub/main.rs", created, true},
		{"workspace folder base nested", `{"watchers":[{"globPattern":{"baseUri":{"uri":"file:///w/sub","name":"sub"},"pattern":"*.rs"}}]}`, "/w/sub/src/main.rs", created, false},
		{"escaped base uri", `{"watchers":[{"globPattern":{"baseUri":"file:///my%20dir","pattern":"**/*.c"}}]}`, "/my dir/a/b.c", changed, true},
		{"root base", `{"watchers":[{"globPattern":{"baseUri":"file:///","pattern":"w/*.c"}}]}`, "/w/b.c", changed, true},
		{"gopls v0.23 relative", goplsRelative, "/tmp/gomod/pkg/a.go", changed, true},
		{"gopls v0.23 relative sum", goplsRelative, "/tmp/gomod/go.sum", deleted, true},
		{"gopls v0.23 relative outside", goplsRelative, "/tmp/other/a.go", changed, false},
		{"gopls v0.23 relative mod anywhere", goplsRelative, "/tmp/other/go.mod", created, true},
		{"gopls v0.23 relative txt", goplsRelative, "/tmp/gomod/a.txt", created, false},
		{"gopls v0.23 absolute", goplsAbsolute, "/tmp/gomod/a.go", created, true},
		{"gopls v0.23 absolute deep", goplsAbsolute, "/tmp/gomod/x/y/go.work", changed, true},
		{"gopls v0.23 absolute outside", goplsAbsolute, "/tmp/gomodx/a.go", changed, false},
		{"gopls v0.23 absolute work anywhere", goplsAbsolute, "/x/go.work", changed, true},
		{"no watchers", `{"watchers":[]}`, "/w/a.go", changed, false},
		{"unknown type", goplsOptions, "/w/a.go", 0, false},
	}
	for _, tt := range tests {
		m, err := lspglob.NewWatchMatcher(json.RawMessage(tt.opts))
		if err != nil {
			t.Errorf("%s: NewWatchMatcher(%s) = %v", tt.name, tt.opts, err)
			continue
		}
		if got := m.Match(tt.path, tt.typ); got != tt.want {
			t.Errorf("%s: Match(%q, %v) = %v, want %v", tt.name, tt.path, tt.typ, got, tt.want)
		}
	}
	var nilMatcher *lspglob.WatchMatcher
	if nilMatcher.Match("/w/a.go", created) {
		t.Error("nil matcher matched")
	}
}

// TestWatchMatcherMatchDir: a directory deleted concerns a server when a
// watcher of deletions could match it or what lay below it.
func TestWatchMatcherMatchDir(t *testing.T) {
	tests := []struct {
		name, opts, dir string
		want            bool
	}{
		{"gopls relative: a package below the module", goplsRelative, "/tmp/gomod/store", true},
		{"gopls relative: the module itself", goplsRelative, "/tmp/gomod", true},
		{"gopls relative: a parent of the module", goplsRelative, "/tmp", true},
		{"gopls relative: elsewhere (its plain go.mod pattern)", goplsRelative, "/elsewhere/x", true},
		{"relative only: elsewhere", `{"watchers":[{"globPattern":{"baseUri":"file:///w","pattern":"**/*.go"}}]}`, "/v/x", false},
		{"relative only: base prefix only", `{"watchers":[{"globPattern":{"baseUri":"file:///w","pattern":"**/*.go"}}]}`, "/wx", false},
		{"relative only: below", `{"watchers":[{"globPattern":{"baseUri":"file:///w","pattern":"**/*.go"}}]}`, "/w/a/b", true},
		{"plain pattern", `{"watchers":[{"globPattern":"**/*.py"}]}`, "/w/pkg", true},
		{"no deletions watched", `{"watchers":[{"globPattern":"**/*.py","kind":3}]}`, "/w/pkg", false},
		{"root", `{"watchers":[{"globPattern":{"baseUri":"file:///w","pattern":"*.c"}}]}`, "/", true},
	}
	for _, tt := range tests {
		m, err := lspglob.NewWatchMatcher(json.RawMessage(tt.opts))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := m.MatchDir(tt.dir); got != tt.want {
			t.Errorf("%s: MatchDir(%q) = %v, want %v", tt.name, tt.dir, got, tt.want)
		}
	}
	var nilMatcher *lspglob.WatchMatcher
	if nilMatcher.MatchDir("/w") {
		t.Error("nil matcher matched a directory")
	}
}

// goplsOptions mixes the shapes servers register: a relative pattern, a
// plain go.work pattern, and a directory pattern for deletions only.
const goplsOptions = `{"watchers":[
	{"globPattern":{"baseUri":"file:///w","pattern":"**/*.{go,mod,sum,work}"},"kind":7},
	{"globPattern":"**/go.work"},
	{"globPattern":{"baseUri":"file:///w","pattern":"**"},"kind":4}
]}`

// The registerOptions gopls v0.23.0 sends for a module in /tmp/gomod, to a
// client with relativePatternSupport and to one without (as measured).
const (
	goplsRelative = `{"watchers": [{"globPattern": "**/*.{mod,work}", "kind": 7}, {"globPattern": {"baseUri": "file:///tmp/gomod", "pattern": "**/*.{go,mod,sum,work}"}, "kind": 7}]}`
	goplsAbsolute = `{"watchers": [{"globPattern": "**/*.{mod,work}", "kind": 7}, {"globPattern": "/tmp/gomod/**/*.{go,mod,sum,work}", "kind": 7}]}`
)

func kindOptions(kind int) string {
	b, _ := json.Marshal(map[string]any{"watchers": []any{map[string]any{"globPattern": "**/*.go", "kind": kind}}})
	return string(b)
}

func TestWatchMatcherMalformed(t *testing.T) {
	tests := []struct {
		opts string
		want error
	}{
		{`not json`, lspglob.ErrBadRegistration},
		{`{}`, lspglob.ErrBadRegistration},
		{`null`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":42}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":{"pattern":"*.go"}}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":{"baseUri":"http://x/y","pattern":"*.go"}}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":{"baseUri":"file:relative","pattern":"*.go"}}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":{"baseUri":{"name":"x"},"pattern":"*.go"}}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":"*.go","kind":8}]}`, lspglob.ErrBadRegistration},
		{`{"watchers":[{"globPattern":"**/*.{go,mod"}]}`, lspglob.ErrBadGlob},
		{`{"watchers":[{"globPattern":{"baseUri":"file:///w","pattern":"[abc"}}]}`, lspglob.ErrBadGlob},
	}
	for _, tt := range tests {
		if m, err := lspglob.NewWatchMatcher(json.RawMessage(tt.opts)); !errors.Is(err, tt.want) {
			t.Errorf("NewWatchMatcher(%s) = %v, %v; want %v", tt.opts, m, err, tt.want)
		}
	}
}
