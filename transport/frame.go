package transport

import (
	"encoding/json"
	"slices"

	"go.lsp.dev/jsonrpc2"
)

// requestFrame encodes a call (id not nil) or a notification as one
// frame, header and body in one buffer, appended to buf (empty); the
// frame is buf[start:]. The body is json.Marshal's of a wireMessage, byte
// for byte, but params json.Marshal wrote are appended as they are:
// json.Marshal of the envelope scanned and copied them once more, the
// largest part of its work for a didOpen or didChange.
func requestFrame(buf []byte, id *jsonrpc2.ID, method string, params wireParams) (_ []byte, start int, err error) {
	raw := omitNull(params.raw)
	if len(raw) > 0 && !params.compact {
		var err error
		if raw, err = json.Marshal(raw); err != nil { // checks and compacts, as the envelope's Marshal did
			return nil, 0, err
		}
	}
	buf = slices.Grow(buf[:0], frameRoom+len(raw)+len(method)+48)[:frameRoom]
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b, err := id.MarshalJSON()
		if err != nil {
			return nil, 0, err
		}
		buf = append(append(buf, `,"id":`...), b...)
	}
	if method != "" {
		buf = appendJSONString(append(buf, `,"method":`...), method)
	}
	if len(raw) > 0 {
		buf = append(append(buf, `,"params":`...), raw...)
	}
	buf = append(buf, '}')
	var room [frameRoom]byte
	hdr := appendHeader(room[:0], len(buf)-frameRoom)
	start = frameRoom - len(hdr)
	copy(buf[start:], hdr)
	return buf, start, nil
}

// appendJSONString appends s as json.Marshal writes it: as it is when
// it holds only printable ASCII that needs no escape (every LSP method).
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(buf, b...)
		}
	}
	return append(append(append(buf, '"'), s...), '"')
}
