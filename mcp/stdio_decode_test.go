package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	segjson "github.com/segmentio/encoding/json"
)

// FuzzEnvelope: a line's members, as the envelope decodes them, are those
// encoding/json finds decoding the line into a map (the decoder the
// envelope replaced): the same members present, each with the same bytes;
// and jsonString reads a string as encoding/json does, and nothing else.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"operation":"hover"}}}`,
		`{"\u0069d":1,"id":2,"ID":3,"Method":"x","method":"m\u00e9thode","params":null}`,
		`{"jsonrpc":"2\u002e0","id":"a\"b","result":{"x":[1,2,{"y":"\ud83d\ude00"}]},"error":null}`,
		`{"id":-0,"method":"\u0000","extra":{"id":5}}`,
		"{\"method\":\"caf\xc3\xa9\",\"id\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1.5,"method":5,"params":"x"}`,
		`{"jsonrpc":"2.0","id":13,"result":1,"error":{"code":1,"message":"x"}}`,
		`{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		raw := []byte(line)
		if !json.Valid(raw) || raw[0] != '{' {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		var got envelope
		if _, err := segjson.Parse(raw, &got, envelopeFlags); err != nil {
			t.Fatalf("envelope of %q: %v", line, err)
		}
		members := map[string]json.RawMessage{"jsonrpc": got.JSONRPC, "id": got.ID, "method": got.Method,
			"params": got.Params, "result": got.Result, "error": got.Error}
		for name, g := range members {
			w, ok := want[name]
			if ok != (g != nil) || !bytes.Equal(w, g) {
				t.Errorf("%q: member %s: envelope %q (present %v), encoding/json %q (present %v)", line, name, g, g != nil, w, ok)
			}
			checkString(t, w)
		}
	})
}

// checkString compares jsonString with encoding/json on one value: a
// string reads the same, anything else (null included, which encoding/json
// reads as "") is no string.
func checkString(t *testing.T, raw json.RawMessage) {
	t.Helper()
	if raw == nil {
		return
	}
	got, ok := jsonString(raw)
	if raw[0] != '"' {
		if ok {
			t.Errorf("jsonString(%q) = %q, true; want false: not a string", raw, got)
		}
		return
	}
	var want string
	err := json.Unmarshal(raw, &want)
	if ok != (err == nil) || got != want {
		t.Errorf("jsonString(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, want, err)
	}
}
