// Package lspglob is LSP 3.17 glob patterns (Glob, CompileGlob, MatchGlob)
// and the file watchers servers register with
// workspace/didChangeWatchedFiles (WatchMatcher). Pure: no goroutines, no
// file system; compiled values are immutable and safe for concurrent use.
package lspglob

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

var (
	// ErrBadGlob: a glob pattern is malformed (an unclosed '{' or '[', an
	// empty or reversed character class).
	ErrBadGlob = errors.New("lspglob: malformed glob pattern")
	// ErrBadRegistration: the registerOptions of a
	// workspace/didChangeWatchedFiles registration are malformed.
	ErrBadRegistration = errors.New("lspglob: malformed didChangeWatchedFiles registration")
)

// Glob is a compiled LSP 3.17 glob pattern. Immutable; safe for concurrent
// use.
//
// Syntax (paths use '/' as separator): '*' matches any run of characters
// within one segment, '?' one character within a segment, '**' any number
// of whole segments including none, '{a,b}' one of the alternatives (which
// may hold any syntax, braces included), '[abc]' and '[a-z]' a character of
// the class, '[!a]' (or '[^a]') a character outside it, never '/'. '**'
// that is not a whole segment counts as '*'. Matching is case-sensitive.
type Glob struct {
	src string
	re  *regexp.Regexp
}

// CompileGlob compiles pattern; a malformed pattern is an error wrapping
// ErrBadGlob. It does not block.
func CompileGlob(pattern string) (*Glob, error) {
	c := globCompiler{src: pattern}
	body, err := c.sequence(false)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile("^" + body + "$")
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadGlob, pattern, err)
	}
	return &Glob{src: pattern, re: re}, nil
}

// Match reports whether path matches the whole pattern.
func (g *Glob) Match(path string) bool { return g.re.MatchString(path) }

// String returns the pattern as written.
func (g *Glob) String() string { return g.src }

// MatchGlob reports whether path matches the LSP glob pattern; a malformed
// pattern matches nothing. It compiles the pattern on every call: compile
// once with CompileGlob (or NewWatchMatcher) to match many paths. Safe for
// concurrent use.
func MatchGlob(pattern, path string) bool {
	g, err := CompileGlob(pattern)
	return err == nil && g.Match(path)
}

// globCompiler translates a glob to a regular expression in one pass.
type globCompiler struct {
	src string
	i   int
}

// sequence translates up to the end of the pattern or, inside braces, up
// to the ',' or '}' that ends the alternative (not consumed).
func (c *globCompiler) sequence(inBraces bool) (string, error) {
	var b strings.Builder
	start := c.i
	for c.i < len(c.src) {
		ch := c.src[c.i]
		switch {
		case inBraces && (ch == ',' || ch == '}'):
			return b.String(), nil
		case ch == '*' && strings.HasPrefix(c.src[c.i:], "**"):
			c.globstar(&b, start, inBraces)
		case ch == '*':
			b.WriteString(`[^/]*`)
			c.i++
		case ch == '?':
			b.WriteString(`[^/]`)
			c.i++
		case ch == '{':
			if err := c.braces(&b); err != nil {
				return "", err
			}
		case ch == '[':
			if err := c.class(&b); err != nil {
				return "", err
			}
		default:
			b.WriteString(regexp.QuoteMeta(c.src[c.i : c.i+1])) // bytewise: UTF-8 stays intact
			c.i++
		}
	}
	if inBraces {
		return "", fmt.Errorf("%w %q: unclosed '{'", ErrBadGlob, c.src)
	}
	return b.String(), nil
}

// globstar translates a run of '*' of length two or more at c.i. As a
// whole segment it matches any number of segments: "**/" any prefix of
// whole segments, a trailing "/**" the directory itself and anything
// below it, a lone "**" anything. Elsewhere it is a plain '*'.
func (c *globCompiler) globstar(b *strings.Builder, start int, inBraces bool) {
	j := c.i
	for j < len(c.src) && c.src[j] == '*' {
		j++
	}
	segStart := c.i == start || c.src[c.i-1] == '/'
	end := j == len(c.src) || (inBraces && (c.src[j] == ',' || c.src[j] == '}'))
	switch {
	case segStart && j < len(c.src) && c.src[j] == '/':
		b.WriteString(`(?:.*/)?`)
		j++
	case segStart && end && c.i > start:
		// "dir/**": the '/' already written becomes optional with the rest.
		s := strings.TrimSuffix(b.String(), "/")
		b.Reset()
		b.WriteString(s)
		b.WriteString(`(?:/.*)?`)
	case segStart && end:
		b.WriteString(`.*`)
	default:
		b.WriteString(`[^/]*`)
	}
	c.i = j
}

// braces translates "{a,b,...}" at c.i into a non-capturing group.
func (c *globCompiler) braces(b *strings.Builder) error {
	c.i++ // '{'
	var alts []string
	for {
		alt, err := c.sequence(true)
		if err != nil {
			return err
		}
		alts = append(alts, alt)
		sep := c.src[c.i] // sequence stopped on ',' or '}'
		c.i++
		if sep == '}' {
			break
		}
	}
	b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	return nil
}

// class translates "[...]" at c.i. '!' or '^' first negates; ']' first is
// a member; 'a-z' is a range. A class never matches '/'.
func (c *globCompiler) class(b *strings.Builder) error {
	j := c.i + 1
	negate := j < len(c.src) && (c.src[j] == '!' || c.src[j] == '^')
	if negate {
		j++
	}
	first := j
	for j < len(c.src) && (c.src[j] != ']' || j == first) {
		j++
	}
	if j >= len(c.src) {
		return fmt.Errorf("%w %q: unclosed '['", ErrBadGlob, c.src)
	}
	b.WriteByte('[')
	if negate {
		b.WriteString("^/")
	}
	for _, r := range c.src[first:j] {
		if r == '-' {
			b.WriteByte('-')
			continue
		}
		if strings.ContainsRune(`\[]^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte(']')
	c.i = j + 1
	return nil
}

// The kinds of a FileSystemWatcher (a bit mask).
const (
	watchKindCreate = 1
	watchKindChange = 2
	watchKindDelete = 4
	watchKindAll    = watchKindCreate | watchKindChange | watchKindDelete
)

// WatchMatcher is the compiled registerOptions of one
// workspace/didChangeWatchedFiles registration: it tells which file
// changes the registering server wants. Immutable; safe for concurrent use.
type WatchMatcher struct {
	watchers []watchRule
}

// watchRule is one compiled FileSystemWatcher.
type watchRule struct {
	base  string // RelativePattern base directory; "" for a plain pattern
	glob  *Glob
	kinds int
}

// NewWatchMatcher compiles the registerOptions of a
// workspace/didChangeWatchedFiles registration:
//
//	{"watchers": [{"globPattern": GlobPattern, "kind": 1|2|4 mask (default 7)}]}
//
// where GlobPattern is a pattern string, matched against the absolute
// path, or a RelativePattern {"baseUri": URI | WorkspaceFolder, "pattern":
// string}, matched against the path relative to baseUri (paths outside it
// never match). Malformed options are an error wrapping ErrBadRegistration;
// a malformed pattern, one wrapping ErrBadGlob. It does not block.
func NewWatchMatcher(registerOptions json.RawMessage) (*WatchMatcher, error) {
	var opts struct {
		Watchers *[]struct {
			GlobPattern json.RawMessage `json:"globPattern"`
			Kind        *int            `json:"kind"`
		} `json:"watchers"`
	}
	if err := json.Unmarshal(registerOptions, &opts); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRegistration, err)
	}
	if opts.Watchers == nil {
		return nil, fmt.Errorf("%w: no watchers", ErrBadRegistration)
	}
	m := &WatchMatcher{}
	for i, w := range *opts.Watchers {
		rule := watchRule{kinds: watchKindAll}
		if w.Kind != nil {
			if *w.Kind < 0 || *w.Kind > watchKindAll {
				return nil, fmt.Errorf("%w: watchers[%d].kind %d", ErrBadRegistration, i, *w.Kind)
			}
			rule.kinds = *w.Kind
		}
		pattern, base, err := parseGlobPattern(w.GlobPattern)
		if err != nil {
			return nil, fmt.Errorf("watchers[%d].globPattern: %w", i, err)
		}
		if rule.glob, err = CompileGlob(pattern); err != nil {
			return nil, fmt.Errorf("watchers[%d].globPattern: %w", i, err)
		}
		rule.base = base
		m.watchers = append(m.watchers, rule)
	}
	return m, nil
}

// parseGlobPattern decodes a GlobPattern: a string, or a RelativePattern
// whose baseUri is a URI string or a WorkspaceFolder {uri, name}.
func parseGlobPattern(raw json.RawMessage) (pattern, base string, err error) {
	if err := json.Unmarshal(raw, &pattern); err == nil {
		return pattern, "", nil
	}
	var rel struct {
		BaseURI json.RawMessage `json:"baseUri"`
		Pattern *string         `json:"pattern"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil || rel.Pattern == nil || rel.BaseURI == nil {
		return "", "", fmt.Errorf("%w: not a pattern string or RelativePattern: %s", ErrBadRegistration, raw)
	}
	var baseURI string
	if err := json.Unmarshal(rel.BaseURI, &baseURI); err != nil {
		var folder struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(rel.BaseURI, &folder); err != nil || folder.URI == "" {
			return "", "", fmt.Errorf("%w: bad baseUri %s", ErrBadRegistration, rel.BaseURI)
		}
		baseURI = folder.URI
	}
	base, err = fileURIPath(baseURI)
	return *rel.Pattern, base, err
}

// fileURIPath returns the clean path of a file:// URI.
func fileURIPath(u string) (string, error) {
	p := paths.FromURI(u)
	if !path.IsAbs(filepath.ToSlash(p)) {
		return "", fmt.Errorf("%w: baseUri %q is not an absolute file URI", ErrBadRegistration, u)
	}
	return path.Clean(filepath.ToSlash(p)), nil
}

// Match reports whether the server wants to hear of change t to path (an
// absolute, clean, '/'-separated path). A nil matcher matches nothing.
func (m *WatchMatcher) Match(path string, t messages.FileChangeType) bool {
	if m == nil || t < messages.FileCreated || t > messages.FileDeleted {
		return false
	}
	bit := 1 << (t - 1) // created 1, changed 2, deleted 4
	for _, w := range m.watchers {
		if w.kinds&bit == 0 {
			continue
		}
		p := path
		if w.base != "" {
			rel, ok := relativeTo(w.base, path)
			if !ok {
				continue
			}
			p = rel
		}
		if w.glob.Match(p) {
			return true
		}
	}
	return false
}

// MatchDir reports whether the server wants to hear that directory dir (an
// absolute, clean, '/'-separated path) was deleted: whether one of its
// watchers of deletions could match dir or a path below it (a pattern
// string, or a RelativePattern whose base is dir, lies below it, or has dir
// below it). A server told of it drops what it knew under dir (gopls
// expands it into the files it knew there); watchers name files, so a
// directory's own path rarely matches them.
func (m *WatchMatcher) MatchDir(dir string) bool {
	if m == nil {
		return false
	}
	for _, w := range m.watchers {
		if w.kinds&watchKindDelete == 0 {
			continue
		}
		if w.base == "" || w.base == dir || strings.HasPrefix(w.base, dir+"/") || dir == "/" {
			return true
		}
		if _, below := relativeTo(w.base, dir); below {
			return true
		}
	}
	return false
}

// relativeTo returns path relative to base when path lies strictly below base.
func relativeTo(base, path string) (string, bool) {
	if base == "/" {
		return strings.TrimPrefix(path, "/"), len(path) > 1 && path[0] == '/'
	}
	rest, ok := strings.CutPrefix(path, base+"/")
	return rest, ok && rest != ""
}
