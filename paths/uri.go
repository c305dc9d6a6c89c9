package paths

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// windows selects Windows path rules; a variable so tests can check both.
var windows = runtime.GOOS == "windows"

// URI returns the file:// URI of an absolute path, percent-encoding what a
// URI path cannot hold. A Windows path C:\a\b becomes file:///C:/a/b and
// a UNC path \\host\share\a becomes file://host/share/a.
func URI(path string) string { return toURI(path, windows) }

// FromURI returns the path of a file:// URI, "" for another scheme or a
// malformed URI. A host other than localhost makes a UNC path
// (//host/share on Unix, \\host\share on Windows). On Unix a path such as
// /A:0 is a directory name, never a drive letter.
func FromURI(uri string) string { return fromURI(uri, windows) }

func toURI(path string, win bool) string {
	if !win {
		if plain(path) {
			return "file://" + path // what url.URL gives, without its allocations
		}
		return (&url.URL{Scheme: "file", Path: path}).String()
	}
	slashed := strings.ReplaceAll(path, `\`, "/")
	if host, rest, ok := strings.Cut(strings.TrimPrefix(slashed, "//"), "/"); ok && strings.HasPrefix(slashed, "//") {
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + rest}).String()
	}
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed // C:/a -> /C:/a
	}
	return (&url.URL{Scheme: "file", Path: slashed}).String()
}

func fromURI(uri string, win bool) string {
	if rest, ok := strings.CutPrefix(uri, "file://"); !win && ok && plain(rest) {
		return rest // what url.Parse gives, without its allocations
	}
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Path == "" {
		return ""
	}
	p := u.Path
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		p = "//" + u.Host + p
	} else if win && hasDrive(p) {
		p = p[1:] // /C:/a -> C:/a
	}
	if win {
		return strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

// plain reports whether p is an absolute path of characters a URI's path
// holds as they are (no percent-encoding either way): most paths, which
// then skip package url.
func plain(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("/-_.~$&+,:;=@", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// hasDrive reports whether p is /X: or /X:/...
func hasDrive(p string) bool {
	if len(p) < 3 || p[0] != '/' || p[2] != ':' {
		return false
	}
	c := p[1] | 0x20
	return c >= 'a' && c <= 'z' && (len(p) == 3 || p[3] == '/')
}

// Normalize returns uri in the one spelling agentlsp uses for a file
// (what URI gives for its path), so the URIs servers send can be compared
// with ours whatever their percent-encoding; other URIs come back as they are.
func Normalize(uri string) string {
	if p := FromURI(uri); p != "" {
		return URI(filepath.Clean(p))
	}
	return uri
}
