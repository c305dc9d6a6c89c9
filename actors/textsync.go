package actors

import (
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/messages"
)

// PathToURI returns the file:// URI of an absolute path, percent-encoding
// what a URI path cannot hold.
func PathToURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// URIToPath returns the path of a file:// URI ("" for another scheme or a
// malformed URI). Unlike go.lsp.dev/uri it never reads a drive letter into
// a Unix path: "/A:0" is a directory name here.
func URIToPath(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(parsed.Path)
}

// contentChange computes the one incremental change that turns old into
// new: the replaced range in old (in the server's position encoding) and
// the new text for it. Common prefix and suffix are kept, cut on rune
// boundaries so no range splits a character.
func contentChange(old, new, encoding string) (messages.Range, string) {
	prefix := commonPrefix(old, new)
	suffix := commonSuffix(old[prefix:], new[prefix:])
	start := offsetToPosition(old, prefix, encoding)
	end := offsetToPosition(old, len(old)-suffix, encoding)
	return messages.Range{Start: start, End: end}, new[prefix : len(new)-suffix]
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	// Back off to the start of a rune both strings share.
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

func commonSuffix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	// The suffix must start on a rune boundary in a.
	for i > 0 && !utf8.RuneStart(a[len(a)-i]) {
		i--
	}
	return i
}

// offsetToPosition converts a byte offset of text to an LSP position whose
// character is counted in encoding units (utf-16 code units by default,
// bytes for utf-8, runes for utf-32).
func offsetToPosition(text string, off int, encoding string) messages.Position {
	line := strings.Count(text[:off], "\n")
	lineStart := strings.LastIndexByte(text[:off], '\n') + 1
	return messages.Position{Line: uint32(line), Character: uint32(units(text[lineStart:off], encoding))}
}

// units counts s in the units of encoding.
func units(s, encoding string) int {
	switch encoding {
	case "utf-8":
		return len(s)
	case "utf-32":
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
