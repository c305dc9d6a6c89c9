package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every *Error: a configuration file,
// or an Entry built by hand, that is not valid.
var ErrInvalid = errors.New("config: invalid configuration")

// Error is a configuration error. It names the file and, when the error is
// about one field, the field's path in the file ("servers.gopls.args").
// A JSON syntax error also carries its 1-based line and column.
type Error struct {
	File   string
	Line   int // of a syntax error; 0 otherwise
	Column int // of a syntax error, in bytes; 0 otherwise
	Field  string
	Msg    string
}

// Error formats e as "file[:line:col]: [field: ]msg".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.File == "" {
		b.WriteString("config")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Unwrap returns ErrInvalid, so that errors.Is(err, ErrInvalid) holds.
func (e *Error) Unwrap() error { return ErrInvalid }

func errorf(file, field, format string, args ...any) *Error {
	return &Error{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// join appends key to the dotted field path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// syntaxError turns a JSON decoding error of a whole file into an *Error,
// with the line and column of a syntax error.
func syntaxError(file string, data []byte, err error) *Error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return errorf(file, "", "invalid JSON: %v", err)
	}
	off := min(max(int(se.Offset), 1), len(data))
	before := data[:max(off-1, 0)]
	line := 1 + bytes.Count(before, []byte("\n"))
	col := max(off-(bytes.LastIndexByte(before, '\n')+1), 1)
	return &Error{File: file, Line: line, Column: col, Msg: "invalid JSON: " + se.Error()}
}

// typeError reports a value of the wrong JSON type, or the error of a
// custom decoder (a Duration's "negative duration -1s").
func typeError(file, field, want string, raw json.RawMessage, err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) || err == nil {
		return errorf(file, field, "want %s, got %s", want, describe(raw))
	}
	return errorf(file, field, "%v", err)
}

// describe renders a JSON value for an error message, compacted and cut.
func describe(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	const limit = 40
	if b.Len() > limit {
		return string(b.Bytes()[:limit]) + "..."
	}
	return b.String()
}

// unknownField reports key, not one of known, in the object at path.
func unknownField(file, path, key string, known []string) *Error {
	if s := suggest(key, known); s != "" {
		return errorf(file, join(path, key), "unknown field; did you mean %q?", s)
	}
	return errorf(file, join(path, key), "unknown field (known: %s)", strings.Join(known, ", "))
}

// suggest returns the known name closest to key: equal but for case, or
// within two edits; "" when none is.
func suggest(key string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
