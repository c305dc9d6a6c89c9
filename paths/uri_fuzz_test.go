package paths_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/paths"
)

// FuzzURIPath: a clean absolute path survives the trip to a file:// URI
// and back, whatever characters it holds.
func FuzzURIPath(f *testing.F) {
	for _, p := range []string{"/w/a.go", "/w/with space/ü.py", "/w/%41#?.ts", "/w/😀/x", "/"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsAny(p, "\x00\\") {
			return
		}
		uri := paths.URI(p)
		if !strings.HasPrefix(uri, "file://") {
			t.Fatalf("URI(%q) = %q", p, uri)
		}
		if back := paths.FromURI(uri); back != p {
			t.Fatalf("FromURI(URI(%q)) = %q (uri %q)", p, back, uri)
		}
	})
}
