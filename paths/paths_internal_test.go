package paths

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// TestResolveIsLinear: resolving a path costs one Lstat per component, at
// most, whatever its depth (the old walk up from the deepest prefix cost
// one EvalSymlinks per level: quadratic).
func TestResolveIsLinear(t *testing.T) {
	ws := t.TempDir()
	real, _ := filepath.EvalSymlinks(ws)
	calls := 0
	lstat = func(p string) (os.FileInfo, error) { calls++; return os.Lstat(p) }
	defer func() { lstat = os.Lstat }()
	if err := os.MkdirAll(filepath.Join(real, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{10, 100, 1000, 2000} {
		calls = 0
		rel := strings.Repeat("a/", 2) + strings.Repeat("x/", depth) + "f.go"
		got, err := InWorkspace(real, rel)
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if want := filepath.Join(real, rel); got != want {
			t.Errorf("depth %d: InWorkspace = %q, want %q", depth, got, want)
		}
		// a, a (missing) and nothing more: the walk stops at the first
		// component that does not exist.
		if calls > 3 {
			t.Errorf("depth %d: %d Lstat calls, want at most 3", depth, calls)
		}
	}
	// An existing deep tree: one call per component.
	deep := filepath.Join(real, strings.Repeat("d/", 200))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	calls = 0
	if _, err := InWorkspace(real, strings.Repeat("d/", 200)+"f.go"); err != nil {
		t.Fatal(err)
	}
	if calls > 201 {
		t.Errorf("200 levels: %d Lstat calls, want at most 201", calls)
	}
}

// TestURIPlainAsPackageURL: the fast path of URI and FromURI for plain
// paths gives what package url does, for every printable ASCII character
// in every place of a path, and refuses the characters url changes.
func TestURIPlainAsPackageURL(t *testing.T) {
	fast := 0
	for c := byte(0x20); c < 0x7f; c++ {
		for _, p := range []string{"/" + string(c), "/w/a" + string(c) + "b.go", "/w/" + string(c) + "/x", "/w/x" + string(c)} {
			want := (&url.URL{Scheme: "file", Path: p}).String()
			if got := toURI(p, false); got != want {
				t.Errorf("URI(%q) = %q, package url gives %q", p, got, want)
			}
			u, err := url.Parse(want)
			if err != nil {
				t.Fatal(err)
			}
			if got := fromURI(want, false); got != u.Path {
				t.Errorf("FromURI(%q) = %q, package url gives %q", want, got, u.Path)
			}
			if plain(p) {
				fast++
				if want != "file://"+p {
					t.Errorf("%q is plain, but package url writes %q", p, want)
				}
			}
		}
	}
	if fast < 4*70 {
		t.Errorf("%d paths took the fast path, want every one of letters, digits and /-_.~$&+,:;=@", fast)
	}
	for _, uri := range []string{"file:///w/a%20b.go", "file:///w/a%2Fb", "file:///w/x?y", "file:///w/x#y", "FILE:///w/x", "file://host/w/x", "file://localhost/w/x"} {
		u, err := url.Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		want := u.Path
		switch {
		case u.Host == "host":
			want = "//host" + u.Path
		case uri == "file:///w/x?y" || uri == "file:///w/x#y":
			want = "/w/x"
		}
		if got := fromURI(uri, false); got != want {
			t.Errorf("FromURI(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestURIWindows(t *testing.T) {
	tests := []struct{ path, uri string }{
		{`C:\work\a.go`, "file:///C:/work/a.go"},
		{`c:\with space\ü.py`, "file:///c:/with%20space/%C3%BC.py"},
		{`\\server\share\x.ts`, "file://server/share/x.ts"},
	}
	for _, tt := range tests {
		if got := toURI(tt.path, true); got != tt.uri {
			t.Errorf("URI(%q) on Windows = %q, want %q", tt.path, got, tt.uri)
		}
		if got := fromURI(tt.uri, true); got != tt.path {
			t.Errorf("FromURI(%q) on Windows = %q, want %q", tt.uri, got, tt.path)
		}
	}
	// On Unix, /A:0 is a directory name, not a drive.
	if got := fromURI("file:///A:0/x", false); got != "/A:0/x" {
		t.Errorf("FromURI(/A:0/x) on Unix = %q", got)
	}
	if got := fromURI("file:///C:/x", true); got != `C:\x` {
		t.Errorf("FromURI(/C:/x) on Windows = %q", got)
	}
	if got := fromURI("file://localhost/etc/x", false); got != "/etc/x" {
		t.Errorf("FromURI(localhost) = %q", got)
	}
	if got := fromURI("https://example.com/x", false); got != "" {
		t.Errorf("FromURI(https) = %q, want empty", got)
	}
}

// readAll reads a file that grew since its size was taken, and refuses
// one that grew past MaxFileSize.
func TestReadAllGrown(t *testing.T) {
	read := func(text string, size int64) ([]byte, error) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return readAll(f, size)
	}
	text := strings.Repeat("grown\n", 1000)
	if b, err := read(text, 10); err != nil || string(b) != text {
		t.Errorf("readAll of %d bytes taken as 10 = %d bytes, %v", len(text), len(b), err)
	}
	if _, err := read(strings.Repeat("x", MaxFileSize+1), 10); !errors.Is(err, messages.ErrFileTooLarge) {
		t.Errorf("readAll past the limit = %v, want ErrFileTooLarge", err)
	}
}
