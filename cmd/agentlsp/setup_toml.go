package main

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// mergeTOML returns old, a TOML document, with entry merged into the table
// at path. Only the entry's key/value lines change (or are added, or a new
// table is appended): every other line, comments included, stays as it
// is. It reports whether the text changed.
func mergeTOML(file string, old []byte, path []string, entry jsonObject) ([]byte, bool, error) {
	before, err := decodeTOML(file, old)
	if err != nil {
		return nil, false, err
	}
	for i := 1; i < len(path); i++ {
		if v := lookup(before, path[:i]); v != nil {
			if _, ok := v.(map[string]any); !ok {
				return nil, false, fmt.Errorf("setup: %s: %s is not a table", file, strings.Join(path[:i], "."))
			}
		}
	}
	cur, _ := lookup(before, path).(map[string]any)
	var diff jsonObject
	for _, f := range entry {
		if v, ok := cur[f.key]; !ok || !sameValue(v, f.value) {
			diff = append(diff, f)
		}
	}
	if len(diff) == 0 {
		return old, false, nil
	}
	text, err := editTOML(file, old, path, diff)
	if err != nil {
		return nil, false, err
	}
	after, err := decodeTOML(file, text)
	if err != nil {
		return nil, false, fmt.Errorf("setup: internal error: the edited %s does not parse (%v); nothing written", file, err)
	}
	if err := checkMerged(file, before, after, path, entry); err != nil {
		return nil, false, err
	}
	return text, true, nil
}

// decodeTOML decodes a TOML document; errors carry their position.
func decodeTOML(file string, text []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(text, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &parseError{file: file, line: line, col: col, msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, fmt.Errorf("%w %s: %v", errSetupParse, file, err)
	}
	return doc, nil
}

// tomlLayout is where the entry's table is in a TOML document.
type tomlLayout struct {
	values map[string][2]int // a field's value: [start, end) offsets
	// anchor is where missing fields go (-1: append a new table), each
	// line starting with prefix (the dotted key before the field's name).
	anchor int
	prefix string
	inline int // offset of a key/value that defines the entry inline, or -1
}

// scanTOML finds the entry at path in text, a valid TOML document.
func scanTOML(text []byte, path []string) (tomlLayout, error) {
	l := tomlLayout{values: map[string][2]int{}, anchor: -1, inline: -1}
	var p unstable.Parser
	p.Reset(text)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, _, _, end := tomlKeyParts(e)
			table = keys
			if e.Kind == unstable.ArrayTable {
				table = append([]string{"\x00[["}, keys...) // never the entry's table
			} else if slices.Equal(keys, path) {
				l.anchor = lineEnd(text, end)
			}
		case unstable.KeyValue:
			keys, start, lastStart, lastEnd := tomlKeyParts(e)
			full := append(slices.Clone(table), keys...)
			switch {
			case len(full) == len(path)+1 && slices.Equal(full[:len(path)], path):
				end := int(e.Raw.Offset + e.Raw.Length)
				l.values[full[len(path)]] = [2]int{valueStart(text, lastEnd), end}
				if len(table) <= len(path) {
					l.anchor, l.prefix = lineEnd(text, end), string(text[start:lastStart])
				}
			case len(full) <= len(path) && slices.Equal(path[:len(full)], full):
				l.inline = start
			}
		}
	}
	return l, p.Error()
}

// tomlKeyParts are the parts of a table's or key/value's dotted key, where
// the key starts, and where its last part starts and ends.
func tomlKeyParts(e *unstable.Node) (keys []string, start, lastStart, lastEnd int) {
	it := e.Key()
	start = -1
	for it.Next() {
		k := it.Node()
		keys = append(keys, string(k.Data))
		lastStart, lastEnd = int(k.Raw.Offset), int(k.Raw.Offset+k.Raw.Length)
		if start < 0 {
			start = lastStart
		}
	}
	return keys, start, lastStart, lastEnd
}

// valueStart is the offset of the value after the key that ends at off.
func valueStart(text []byte, off int) int {
	rest := bytes.TrimLeft(text[off:], " \t")
	rest = bytes.TrimLeft(bytes.TrimPrefix(rest, []byte("=")), " \t")
	return len(text) - len(rest)
}

// lineEnd is the offset after the line break that ends the line holding
// off, or the end of text.
func lineEnd(text []byte, off int) int {
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(text)
}

// editTOML sets the fields of text's entry at path: a field's value is
// replaced where it is, missing fields are added after the entry's last
// field (or its table header), or in a new table at the end.
func editTOML(file string, text []byte, path []string, fields jsonObject) ([]byte, error) {
	l, err := scanTOML(text, path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", errSetupParse, file, err)
	}
	if l.inline >= 0 {
		name := strings.Join(path, ".")
		line, col := position(text, l.inline)
		return nil, fmt.Errorf("%s:%d:%d: %s is an inline value: %w; rewrite it as a [%s] table, or edit it by hand (--print shows the entry)",
			file, line, col, name, errSetupInline, name)
	}
	nl := "\n"
	if bytes.Contains(text, []byte("\r\n")) {
		nl = "\r\n"
	}
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	var missing jsonObject
	for _, f := range fields {
		v, err := tomlValue(f.value)
		if err != nil {
			return nil, err
		}
		if span, ok := l.values[f.key]; ok {
			edits = append(edits, edit{span[0], span[1], v})
			continue
		}
		missing = append(missing, f)
	}
	if len(missing) > 0 {
		at, block, err := l.insertion(text, path, missing, nl)
		if err != nil {
			return nil, err
		}
		edits = append(edits, edit{at, at, block})
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := bytes.Clone(text)
	for _, e := range edits {
		out = splice(out, e.from, e.to, e.text)
	}
	return out, nil
}

// insertion is where and what to insert for the missing fields: lines
// after the entry's last field (or its table header), or a new table at
// the end of text.
func (l tomlLayout) insertion(text []byte, path []string, missing jsonObject, nl string) (int, string, error) {
	at, block := len(text), ""
	if l.anchor >= 0 {
		at = l.anchor
		for _, f := range missing {
			v, err := tomlValue(f.value)
			if err != nil {
				return 0, "", err
			}
			block += l.prefix + tomlKey(f.key) + " = " + v + nl
		}
	} else {
		table, err := tomlTable(path, missing)
		if err != nil {
			return 0, "", err
		}
		block = strings.ReplaceAll(table, "\n", nl)
		if len(text) > 0 {
			block = nl + block // a blank line before the new table
		}
	}
	if at == len(text) && len(text) > 0 && !bytes.HasSuffix(text, []byte("\n")) {
		block = nl + block
	}
	return at, block, nil
}

// tomlTable is a TOML table holding fields: its header and one line per
// field.
func tomlTable(path []string, fields jsonObject) (string, error) {
	keys := make([]string, len(path))
	for i, k := range path {
		keys[i] = tomlKey(k)
	}
	var b strings.Builder
	b.WriteString("[" + strings.Join(keys, ".") + "]\n")
	for _, f := range fields {
		v, err := tomlValue(f.value)
		if err != nil {
			return "", err
		}
		b.WriteString(tomlKey(f.key) + " = " + v + "\n")
	}
	return b.String(), nil
}

// tomlValue is v encoded as a TOML value.
func tomlValue(v any) (string, error) {
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return "", fmt.Errorf("setup: %w", err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	if !strings.HasPrefix(s, "v = ") || strings.Contains(s, "\n") {
		return "", fmt.Errorf("setup: cannot write %v as one TOML value", v)
	}
	return strings.TrimPrefix(s, "v = "), nil
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey is k as a TOML key: bare when it can be.
func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	v, err := tomlValue(k)
	if err != nil {
		return fmt.Sprintf("%q", k)
	}
	return v
}
