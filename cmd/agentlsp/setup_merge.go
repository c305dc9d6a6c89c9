package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
)

// mergeJSON returns old, a JSON (or JSONC) document, with entry merged in
// at path: the entry's fields are set, every other member stays as it is.
// It reports whether the text changed.
func mergeJSON(file string, old []byte, jsonc bool, path []string, entry jsonObject) ([]byte, bool, error) {
	d := &jsonDoc{file: file, text: bytes.Clone(old), jsonc: jsonc}
	before, err := d.parse()
	if err != nil {
		return nil, false, err
	}
	changed, err := d.mergeEntry(path, entry)
	if err != nil || !changed {
		return old, false, err
	}
	after, err := d.parse()
	if err != nil {
		return nil, false, fmt.Errorf("setup: internal error: the edited %s does not parse (%v); nothing written", file, err)
	}
	if err := checkMerged(file, before, after, path, entry); err != nil {
		return nil, false, err
	}
	return d.text, true, nil
}

// mergeEntry sets the fields of entry that differ, or the whole entry if
// there is no object at path.
func (d *jsonDoc) mergeEntry(path []string, entry jsonObject) (bool, error) {
	raw, found, err := d.get(path)
	if err != nil {
		return false, err
	}
	var cur map[string]any
	if found {
		_ = json.Unmarshal(raw, &cur) // not an object: replaced whole
	}
	if cur == nil {
		return true, d.set(path, entry)
	}
	changed := false
	for _, f := range entry {
		if v, ok := cur[f.key]; ok && sameValue(v, f.value) {
			continue
		}
		if err := d.set(append(slices.Clone(path), f.key), f.value); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// sameValue reports whether a decoded value and a Go value are the same
// JSON.
func sameValue(got, want any) bool {
	g, err1 := json.Marshal(got)
	w, err2 := json.Marshal(want)
	return err1 == nil && err2 == nil && bytes.Equal(g, w)
}

// checkMerged checks an edit before it is written: the entry at path holds
// entry's fields, and nothing else in the document changed.
func checkMerged(file string, before, after map[string]any, path []string, entry jsonObject) error {
	got, _ := lookup(after, path).(map[string]any)
	keys := make([]string, len(entry))
	for i, f := range entry {
		keys[i] = f.key
		if v, ok := got[f.key]; !ok || !sameValue(v, f.value) {
			return fmt.Errorf("setup: internal error: the edit of %s did not set %s; nothing written", file, f.key)
		}
	}
	if !reflect.DeepEqual(without(before, path, keys), without(after, path, keys)) {
		return fmt.Errorf("setup: internal error: the edit of %s would change other settings; nothing written", file)
	}
	return nil
}

// lookup is the value at path in a decoded document, or nil.
func lookup(v any, path []string) any {
	for _, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[key]
	}
	return v
}

// without is the decoded document v without the fields keys of the entry
// at path, and without the objects on the path that this leaves empty.
func without(v any, path []string, keys []string) any {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return v
	}
	out := maps.Clone(m)
	child, ok := out[path[0]]
	if !ok {
		return out
	}
	if len(path) == 1 {
		if e, ok := child.(map[string]any); ok {
			e = maps.Clone(e)
			for _, k := range keys {
				delete(e, k)
			}
			child = e
		} else {
			child = map[string]any{} // a non-object entry is replaced
		}
	} else {
		child = without(child, path[1:], keys)
	}
	if c, ok := child.(map[string]any); ok && len(c) == 0 {
		delete(out, path[0])
	} else {
		out[path[0]] = child
	}
	return out
}

// readConfig reads a configuration file; a missing file is empty.
func readConfig(file string) (text []byte, existed bool, err error) {
	text, err = os.ReadFile(file)
	switch {
	case os.IsNotExist(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("setup: %w", err)
	}
	return text, true, nil
}

// writeConfig replaces file's content with text: it first copies the old
// content (if the file existed) to file.bak, then renames a new file over
// it, so that a reader never sees half a file. It keeps the file's mode
// and writes through a symbolic link. Missing directories are created,
// private ones (0700, files 0600) in the user's home. It returns the
// backup's path.
func writeConfig(file string, old []byte, existed bool, text []byte, private bool) (string, error) {
	dirMode, mode := os.FileMode(0o755), os.FileMode(0o644)
	if private {
		dirMode, mode = 0o700, 0o600
	}
	target := file
	backup := ""
	if existed {
		if t, err := filepath.EvalSymlinks(file); err == nil {
			target = t
		}
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
		backup = file + ".bak"
		if err := replaceFile(backup, old, mode); err != nil {
			return "", fmt.Errorf("setup: backup: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), dirMode); err != nil {
		return "", fmt.Errorf("setup: %w", err)
	}
	if err := replaceFile(target, text, mode); err != nil {
		return "", fmt.Errorf("setup: %w", err)
	}
	return backup, nil
}

// replaceFile writes text to a temporary file beside file and renames it
// to file.
func replaceFile(file string, text []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(text)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
