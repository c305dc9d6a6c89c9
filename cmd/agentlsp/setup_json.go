package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp/config"
)

// jsonField is one member of a jsonObject.
type jsonField struct {
	key   string
	value any
}

// jsonObject is a JSON object that keeps its members' order.
type jsonObject []jsonField

// MarshalJSON encodes the members in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := encodeJSON(f.key, "", "")
		if err != nil {
			return nil, err
		}
		value, err := encodeJSON(f.value, "", "")
		if err != nil {
			return nil, err
		}
		b.WriteString(key + ":" + value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeJSON encodes v, without escaping HTML characters, indented (each
// line after the first starts with prefix) when indent is not "".
func encodeJSON(v any, prefix, indent string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// parseError is a configuration file setup cannot parse.
type parseError struct {
	file      string
	line, col int
	msg       string
}

func (e *parseError) Error() string {
	return fmt.Sprintf("%v %s:%d:%d: %s (setup leaves the file alone: fix it and run setup again)",
		errSetupParse, e.file, e.line, e.col, e.msg)
}

func (e *parseError) Unwrap() error { return errSetupParse }

// errorAt is a parseError at byte offset off of text.
func errorAt(file string, text []byte, off int, msg string) error {
	line, col := position(text, off)
	return &parseError{file: file, line: line, col: col, msg: msg}
}

// position is the line and column (1-based, in characters) of byte offset
// off of text.
func position(text []byte, off int) (line, col int) {
	off = max(0, min(off, len(text)))
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	return bytes.Count(text[:start], []byte("\n")) + 1, utf8.RuneCount(text[start:off]) + 1
}

// jsonDoc is a JSON or JSONC document edited as text, so that all that
// setup does not change stays byte for byte: key order, layout, comments.
type jsonDoc struct {
	file  string
	text  []byte
	jsonc bool
}

// clean is the text with comments (and, if commas, trailing commas)
// blanked out, at the same offsets; the text itself for plain JSON.
func (d *jsonDoc) clean(commas bool) []byte {
	if !d.jsonc {
		return d.text
	}
	return config.BlankJSONC(d.text, commas)
}

// newline is the document's line break.
func (d *jsonDoc) newline() string {
	if bytes.Contains(d.text, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// parse decodes the document, which must be an object. An empty document
// (or one of comments only) becomes {}.
func (d *jsonDoc) parse() (map[string]any, error) {
	clean := d.clean(true)
	if len(bytes.TrimSpace(clean)) == 0 {
		if len(d.text) > 0 && !bytes.HasSuffix(d.text, []byte("\n")) {
			d.text = append(d.text, d.newline()...)
		}
		d.text = append(d.text, "{}"+d.newline()...)
		clean = d.clean(true)
	}
	var v any
	if err := json.Unmarshal(clean, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, errorAt(d.file, d.text, int(se.Offset)-1, se.Error())
		}
		return nil, fmt.Errorf("%w %s: %v", errSetupParse, d.file, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errorAt(d.file, d.text, rootStart(clean), "the file is not a JSON object")
	}
	return m, nil
}

// rootStart is the offset of the document's first value.
func rootStart(clean []byte) int {
	return len(clean) - len(bytes.TrimLeft(clean, " \t\r\n"))
}

// jsonMember is where one member of an object is in a document.
type jsonMember struct {
	key              string
	start            int // the key's opening quote
	valStart, valEnd int
}

// jsonSpan is where an object and its members are in a document.
type jsonSpan struct {
	open, close int // the braces
	members     []jsonMember
}

// member is the last member named key (the one JSON decoders keep).
func (s jsonSpan) member(key string) (jsonMember, bool) {
	for i := len(s.members) - 1; i >= 0; i-- {
		if s.members[i].key == key {
			return s.members[i], true
		}
	}
	return jsonMember{}, false
}

// scanObject finds the members of the object at offset at of clean, a
// valid JSON document.
func scanObject(clean []byte, at int) (jsonSpan, error) {
	dec := json.NewDecoder(bytes.NewReader(clean[at:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return jsonSpan{}, fmt.Errorf("setup: no object at offset %d", at)
	}
	span := jsonSpan{open: at}
	for dec.More() {
		before := at + int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return jsonSpan{}, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonSpan{}, err
		}
		end := at + int(dec.InputOffset())
		start := before + len(clean[before:]) - len(bytes.TrimLeft(clean[before:], " \t\r\n,"))
		span.members = append(span.members, jsonMember{key: key, start: start, valStart: end - len(raw), valEnd: end})
	}
	if _, err := dec.Token(); err != nil {
		return jsonSpan{}, err
	}
	span.close = at + int(dec.InputOffset()) - 1
	return span, nil
}

// get returns the value at path, as JSON.
func (d *jsonDoc) get(path []string) (json.RawMessage, bool, error) {
	clean := d.clean(true)
	span, err := scanObject(clean, rootStart(clean))
	for i, key := range path {
		if err != nil {
			return nil, false, err
		}
		m, ok := span.member(key)
		switch {
		case !ok:
			return nil, false, nil
		case i == len(path)-1:
			return json.RawMessage(clean[m.valStart:m.valEnd]), true, nil
		case clean[m.valStart] != '{':
			return nil, false, fmt.Errorf("%s: %s is not an object", d.file, strings.Join(path[:i+1], "."))
		}
		span, err = scanObject(clean, m.valStart)
	}
	return nil, false, err
}

// set sets the value at path, creating the objects on the way.
func (d *jsonDoc) set(path []string, value any) error {
	clean := d.clean(true)
	span, err := scanObject(clean, rootStart(clean))
	for i, key := range path {
		if err != nil {
			return err
		}
		m, ok := span.member(key)
		switch {
		case !ok:
			return d.insert(clean, span, key, nest(path[i+1:], value))
		case i == len(path)-1:
			return d.replace(m, value)
		case clean[m.valStart] != '{':
			return fmt.Errorf("%s: %s is not an object", d.file, strings.Join(path[:i+1], "."))
		}
		span, err = scanObject(clean, m.valStart)
	}
	return err
}

// nest is value under the keys of path.
func nest(path []string, value any) any {
	for i := len(path) - 1; i >= 0; i-- {
		value = jsonObject{{path[i], value}}
	}
	return value
}

// replace replaces member m's value.
func (d *jsonDoc) replace(m jsonMember, value any) error {
	text, err := d.encode(value, lineIndent(d.text, m.start))
	if err != nil {
		return err
	}
	d.text = splice(d.text, m.valStart, m.valEnd, text)
	return nil
}

// encode encodes value in the document's layout, its lines after the
// first starting with indent.
func (d *jsonDoc) encode(value any, indent string) (string, error) {
	text, err := encodeJSON(value, indent, d.indentUnit())
	return strings.ReplaceAll(text, "\n", d.newline()), err
}

// indentUnit is one level of the document's indentation: that of the root
// object's first member, or two spaces.
func (d *jsonDoc) indentUnit() string {
	clean := d.clean(true)
	span, err := scanObject(clean, rootStart(clean))
	if err == nil && len(span.members) > 0 {
		if in := lineIndent(d.text, span.members[0].start); in != "" && ownLine(d.text, span.members[0].start) {
			return in
		}
	}
	return "  "
}

// insert adds the member key: value to the object span.
func (d *jsonDoc) insert(clean []byte, span jsonSpan, key string, value any) error {
	nl := d.newline()
	quoted, _ := encodeJSON(key, "", "")
	if len(span.members) == 0 {
		outer := lineIndent(d.text, span.open)
		indent := outer + d.indentUnit()
		text, err := d.encode(value, indent)
		d.text = splice(d.text, span.open, span.close+1, "{"+nl+indent+quoted+": "+text+nl+outer+"}")
		return err
	}
	first, last := span.members[0], span.members[len(span.members)-1]
	if !ownLine(d.text, first.start) { // an object on one line stays on one line
		text, err := encodeJSON(value, "", "")
		d.text = splice(d.text, last.valEnd, last.valEnd, ", "+quoted+": "+text)
		return err
	}
	indent := lineIndent(d.text, first.start)
	text, err := d.encode(value, indent)
	if err != nil {
		return err
	}
	member := nl + indent + quoted + ": " + text
	comma := trailingComma(config.BlankJSONC(d.text, false), clean, last.valEnd, span.close)
	at := last.valEnd
	if comma >= 0 {
		at = comma + 1
		member += "," // keep the file's trailing-comma style
	}
	// After the rest of the line when that is only a comment.
	if eol := bytes.IndexByte(clean[at:span.close], '\n'); eol >= 0 && len(bytes.TrimSpace(clean[at:at+eol])) == 0 {
		at += eol
		if eol > 0 && clean[at-1] == '\r' {
			at--
		}
	}
	d.text = splice(d.text, at, at, member)
	if comma < 0 {
		d.text = splice(d.text, last.valEnd, last.valEnd, ",")
	}
	return nil
}

// trailingComma is the offset of a trailing comma (a comma that only the
// JSONC cleaning removed) between from and to, or -1.
func trailingComma(withCommas, clean []byte, from, to int) int {
	for i := from; i < to; i++ {
		if withCommas[i] == ',' && clean[i] != ',' {
			return i
		}
	}
	return -1
}

// lineIndent is the blanks that start the line holding offset off.
func lineIndent(text []byte, off int) string {
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	line := text[start:off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// ownLine reports whether only blanks precede offset off on its line.
func ownLine(text []byte, off int) bool {
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	return len(bytes.TrimLeft(text[start:off], " \t")) == 0
}

// splice replaces text[from:to] with s.
func splice(text []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(s))
	out = append(out, text[:from]...)
	out = append(out, s...)
	return append(out, text[to:]...)
}
