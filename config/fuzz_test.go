package config

import "testing"

// FuzzParse: no input makes parsing or building a registry panic, and an
// accepted file builds a registry or fails with an *Error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"servers": {"gopls": {"command": "gopls", "args": ["serve"]}}}`))
	f.Add([]byte(`{"servers": {"x": {"command": "x", "extensions": {".x": "x"}, "startupTimeout": "1s"}}}`))
	f.Add([]byte(`{"servers": {"gopls": {"disabled": true}}}`))
	f.Add([]byte(`{"servers": {`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "fuzz.json")
		if err != nil {
			return
		}
		if _, err := NewRegistry(file); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("NewRegistry error %T is not *Error: %v", err, err)
			}
		}
		_, _ = ParseOpenCode(data, "opencode.json")
		_, _ = ParseClaudeLSP(data, "x.lsp.json")
	})
}
