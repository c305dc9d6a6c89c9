package transport

import (
	"encoding/json"
	"fmt"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestRequestFrameIsMarshalsEnvelope checks requestFrame against what
// json.Marshal of the envelope wrote before it: the same body, byte for
// byte, under a Content-Length that counts it.
func TestRequestFrameIsMarshalsEnvelope(t *testing.T) {
	num, str := jsonrpc2.NewNumberID(7), jsonrpc2.NewStringID(`a"<b>`)
	marshalled, err := marshalParams(map[string]any{"textDocument": map[string]any{"uri": "file:///a<&>.go", "version": 3},
		"text": "line\n\t\"é\" \u2028 <tag>"})
	if err != nil {
		t.Fatal(err)
	}
	params := []wireParams{
		{},
		{raw: json.RawMessage("null")},
		{raw: json.RawMessage(" null \n")},
		marshalled,
		{raw: json.RawMessage(` { "a" : [1, 2] ,"b":"<&>" } `)},
		{raw: json.RawMessage(`[]`)},
	}
	var reused []byte
	for _, id := range []*jsonrpc2.ID{nil, &num, &str} {
		for _, method := range []string{"textDocument/didChange", "$/cancelRequest", "", `odd "<é>&\n`} {
			for _, p := range params {
				want, err := json.Marshal(wireMessage{JSONRPC: "2.0", ID: id, Method: method, Params: omitNull(p.raw)})
				if err != nil {
					t.Fatal(err)
				}
				buf, start, err := requestFrame(reused[:0], id, method, p)
				if err != nil {
					t.Fatalf("requestFrame(%v, %q, %s) failed: %v", id, method, p.raw, err)
				}
				got := buf[start:]
				reused = buf // the next frame is built over this one
				if wantFrame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(want), want); string(got) != wantFrame {
					t.Errorf("requestFrame(%v, %q, %s) = %q, want %q", id, method, p.raw, got, wantFrame)
				}
			}
		}
	}
	if _, _, err := requestFrame(nil, &num, "m", wireParams{raw: json.RawMessage(`{"a":`)}); err == nil {
		t.Errorf("requestFrame with invalid raw params succeeded, want an error")
	}
}
