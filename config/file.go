package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
)

// File is a parsed configuration file: the server entries it holds, by
// server ID. It is plain data, owned by its user; NewRegistry merges it over
// the built-in definitions.
type File struct {
	// Name is the file errors are reported under (the path given to Load).
	Name    string
	Servers map[string]*Entry
}

// Entry is one server entry of a File: the values of the fields it sets and
// which fields those are, so that an entry for a built-in server overrides
// only them.
type Entry struct {
	// Server holds the values of the fields in Fields; the others are zero.
	Server Server
	// Fields lists the agentlsp JSON names ("command", "startupTimeout") of
	// the fields the entry sets (sorted in a parsed File).
	Fields []string
	// Path is where the entry is in its file ("servers.gopls"), for errors.
	Path string
	// keys maps a field name to the key the file used for it, when the two
	// differ (an import's "extensionToLanguage"), for errors.
	keys map[string]string
}

// fieldPath is the path in the file of the field named name.
func (e *Entry) fieldPath(name string) string {
	if k, ok := e.keys[name]; ok {
		return join(e.Path, k)
	}
	return join(e.Path, name)
}

// fieldSpec is one JSON field of Server.
type fieldSpec struct {
	name  string // JSON name
	index int    // index in Server
	want  string // its JSON type, for error messages
}

// serverFields are the JSON fields of Server in declaration order;
// fieldNames are their names, sorted.
var serverFields, fieldNames = func() (map[string]fieldSpec, []string) {
	t := reflect.TypeFor[Server]()
	m := map[string]fieldSpec{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = fieldSpec{name: name, index: i, want: wantOf(f.Type)}
	}
	return m, slices.Sorted(maps.Keys(m))
}()

// wantOf describes the JSON that decodes into a value of type t.
func wantOf(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Duration]():
		return `a duration ("30s" or milliseconds)`
	case reflect.TypeFor[json.RawMessage]():
		return "a JSON value"
	case reflect.TypeFor[[]string]():
		return "an array of strings"
	case reflect.TypeFor[map[string]string]():
		return "an object of strings"
	case reflect.TypeFor[map[string]any]():
		return "an object"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool, reflect.Pointer:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	}
	panic(fmt.Sprintf("config: no JSON description for %v", t))
}

// Load reads and parses the agentlsp configuration file at path (see
// Parse). It blocks on the file system.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Parse parses an agentlsp configuration, {"servers": {"<id>": {...}}},
// with the Server fields by their JSON names. name is the file name errors
// carry; a name ending in ".jsonc" allows comments and trailing commas.
// Unknown fields, wrong types and invalid values are errors (*Error).
func Parse(data []byte, name string) (*File, error) {
	if strings.HasSuffix(strings.ToLower(name), ".jsonc") {
		data = stripJSONC(data)
	}
	top, err := decodeTop(name, data)
	if err != nil {
		return nil, err
	}
	for _, key := range slices.Sorted(maps.Keys(top)) {
		if key != "servers" {
			return nil, unknownField(name, "", key, []string{"servers"})
		}
	}
	f := &File{Name: name, Servers: map[string]*Entry{}}
	raw, ok := top["servers"]
	if !ok {
		return f, nil
	}
	servers, err := decodeObject(name, "servers", raw)
	if err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(servers)) {
		path := join("servers", id)
		obj, err := decodeObject(name, path, servers[id])
		if err != nil {
			return nil, err
		}
		if f.Servers[id], err = decodeEntry(name, id, path, obj); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// decodeEntry decodes a server entry in the agentlsp schema.
func decodeEntry(file, id, path string, obj map[string]json.RawMessage) (*Entry, error) {
	if err := checkID(file, path, id); err != nil {
		return nil, err
	}
	for key := range obj {
		if _, ok := serverFields[key]; !ok {
			return nil, unknownField(file, path, key, fieldNames)
		}
	}
	return decodeFields(file, path, obj, nil)
}

// decodeTop decodes a whole file, which must be a JSON object.
func decodeTop(file string, data []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	err := json.Unmarshal(data, &obj)
	if _, ok := err.(*json.SyntaxError); ok {
		return nil, syntaxError(file, data, err)
	}
	if err != nil || obj == nil {
		return nil, typeError(file, "", "an object", data, nil)
	}
	return obj, nil
}

// decodeObject decodes raw, the value at path, which must be an object.
func decodeObject(file, path string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, typeError(file, path, "an object", raw, nil)
	}
	return obj, nil
}

// decodeFields decodes obj, keyed by Server JSON names, into a validated
// Entry at path. keys maps a field name to the key the file used for it.
func decodeFields(file, path string, obj map[string]json.RawMessage, keys map[string]string) (*Entry, error) {
	e := &Entry{Path: path, keys: keys}
	v := reflect.ValueOf(&e.Server).Elem()
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		spec := serverFields[name]
		if err := json.Unmarshal(obj[name], v.Field(spec.index).Addr().Interface()); err != nil {
			return nil, typeError(file, e.fieldPath(name), spec.want, obj[name], err)
		}
		e.Fields = append(e.Fields, name)
	}
	if string(e.Server.InitializationOptions) == "null" {
		e.Server.InitializationOptions = nil
	}
	if err := validateEntry(file, e); err != nil {
		return nil, err
	}
	return e, nil
}
