package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// encodeMessage writes what jsonrpc.EncodeMessage writes, byte for byte,
// for every kind of message.
func TestEncodeMessageAsTheSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":"a <b> & \"c\"\\n é 𝄞 \u2028"}],"structuredContent":{"n":[1,2.5,-3e7],"ok":true,"x":null}}`)
	// The same with a literal U+2028 and U+2029, which EncodeMessage would
	// escape if it escaped HTML.
	raw := json.RawMessage(`{"text":"<a>` + "\u2028\u2029" + `"}`)
	msgs := map[string]jsonrpc.Message{
		"literal separators": &jsonrpc.Response{ID: id(float64(12)), Result: raw},
		"result":             &jsonrpc.Response{ID: id(float64(7)), Result: result},
		"large id":           &jsonrpc.Response{ID: id(float64(1 << 52)), Result: json.RawMessage(`{}`)},
		"negative id":        &jsonrpc.Response{ID: id(float64(-3)), Result: json.RawMessage(`[]`)},
		"string id":          &jsonrpc.Response{ID: id("a<&>\"b"), Result: result},
		"error":              &jsonrpc.Response{ID: id(float64(8)), Error: &jsonrpc.Error{Code: -32602, Message: "bad <params>"}},
		"plain error":        &jsonrpc.Response{ID: id(float64(9)), Error: errors.New("failed")},
		"result not compact": &jsonrpc.Response{ID: id(float64(10)), Result: json.RawMessage("{\n  \"a\": 1\n}")},
		"request":            &jsonrpc.Request{ID: id(float64(11)), Method: "roots/list", Params: json.RawMessage(`{}`)},
		"notification":       &jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
	}
	for name, msg := range msgs {
		want, werr := jsonrpc.EncodeMessage(msg)
		got, gerr := encodeMessage(msg)
		if string(got) != string(want) || (gerr == nil) != (werr == nil) {
			t.Errorf("%s: encodeMessage = %s, %v\nEncodeMessage = %s, %v", name, got, gerr, want, werr)
		}
	}
}

// BenchmarkEncodeMessage: a hover's answer of 2.5 KB, encoded by the
// transport and by the SDK's EncodeMessage.
func BenchmarkEncodeMessage(b *testing.B) {
	id, _ := jsonrpc.MakeID(float64(17))
	text := strings.Repeat("func (s *Session) Hover(ctx context.Context) ", 55)
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": text}},
		"structuredContent": map[string]any{"operation": "hover", "hover": map[string]string{"text": text[:1000]}}})
	msg := &jsonrpc.Response{ID: id, Result: res}
	for name, enc := range map[string]func(jsonrpc.Message) ([]byte, error){"transport": encodeMessage, "sdk": jsonrpc.EncodeMessage} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
