package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// This file checks one line of a StdioTransport's input against JSON-RPC
// 2.0 and builds either the message for the SDK or the error answer.

// nullID is the id of an answer to a message whose id cannot be read.
var nullID = json.RawMessage("null")

// maxExactID bounds the numeric ids kept exactly: the SDK reads numbers as
// float64.
const maxExactID = 1 << 53

// errorAnswer is a JSON-RPC error response.
type errorAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

type errorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func newAnswer(id json.RawMessage, code int64, msg string) *errorAnswer {
	return &errorAnswer{JSONRPC: "2.0", ID: id, Error: errorObject{Code: code, Message: msg}}
}

// invalid is a -32600 answer.
func invalid(id json.RawMessage, why string) *errorAnswer {
	return newAnswer(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+why)
}

// rejection is what to do with a line that is not a valid message: write
// data (nothing if empty), and log code and why.
type rejection struct {
	data []byte
	code int64
	why  string
}

func (a *errorAnswer) rejection() *rejection {
	data, err := json.Marshal(a)
	if err != nil { // the id came from valid JSON: cannot happen
		data, _ = json.Marshal(newAnswer(nullID, a.Error.Code, a.Error.Message))
	}
	return &rejection{data: data, code: a.Error.Code, why: a.Error.Message}
}

// oversized is the answer to a line over the limit, head its first bytes:
// with the message's id when head has it before the rest (clients write
// "jsonrpc" and "id" before "params"), so that the client's call is
// answered and not left waiting.
func oversized(limit int, head []byte) *rejection {
	return invalid(leadingID(head), fmt.Sprintf("message longer than %d bytes", limit)).rejection()
}

// leadingID finds the "id" member of the object head begins, among the
// members that head holds whole, nested values skipped; null when there is
// none or it is not a valid id.
func leadingID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nullID
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nullID
		}
		if key != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nullID
			}
			continue
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nullID
		}
		if _, echo, why := readID(raw, true); why == "" {
			return echo
		}
		return nullID
	}
}

// decodeLine returns the message of a valid line, or what to answer to an
// invalid one, or neither for a blank line.
func decodeLine(line []byte) (jsonrpc.Message, *rejection) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !json.Valid(line) {
		var raw json.RawMessage
		err := json.Unmarshal(line, &raw) // why it is not valid
		return nil, newAnswer(nullID, jsonrpc.CodeParseError, "Parse error: "+err.Error()).rejection()
	}
	if line[0] == '[' {
		return nil, rejectBatch(line)
	}
	msg, answer := decodeValue(line)
	if answer != nil {
		return nil, answer.rejection()
	}
	return msg, nil
}

// envelope is a message's members as JSON-RPC names them, each as it was
// sent: nil when absent, "null" when null. Other members are ignored.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// envelopeFlags decode an envelope as encoding/json decodes a map of its
// members, names spelled exactly, each value pointing into the line (the
// line is the message's own: the reader allocates each one). Decoding the
// line into a map with encoding/json took 5.2 µs and 26 allocations per
// call, warm, and most of the reader's CPU with a call's caches cold;
// this takes 0.4 µs and one allocation.
const envelopeFlags = segjson.ZeroCopy | segjson.DontMatchCaseInsensitiveStructFields

// decodeValue checks one JSON value (valid JSON) as a JSON-RPC message.
func decodeValue(raw []byte) (jsonrpc.Message, *errorAnswer) {
	if raw[0] != '{' {
		return nil, invalid(nullID, "a message must be a JSON object")
	}
	var m envelope
	if _, err := segjson.Parse(raw, &m, envelopeFlags); err != nil {
		return nil, invalid(nullID, err.Error())
	}
	id, echo, why := readID(m.ID, m.ID != nil)
	if why != "" {
		return nil, invalid(echo, why)
	}
	if version, ok := jsonString(m.JSONRPC); !ok || version != "2.0" {
		return nil, invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	if m.Method != nil {
		return request(&m, id, echo)
	}
	return response(&m, id, echo)
}

// jsonString decodes a JSON string; false when raw is not one (or is
// absent). A string without escapes or bytes outside printable ASCII is
// its bytes; others are decoded by encoding/json.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	plain := true
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			plain = false
			break
		}
	}
	if plain && raw[len(raw)-1] == '"' {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// readID reads a message's id: a string or an integer the SDK keeps
// exactly. echo is the id to answer with: the id as sent when it can be
// read, even if it is refused, else null. why is empty when the id is
// valid (or absent).
func readID(raw json.RawMessage, present bool) (id jsonrpc.ID, echo json.RawMessage, why string) {
	if !present {
		return id, nullID, ""
	}
	const bad = `"id" must be a string or an integer`
	switch c := raw[0]; {
	case c == '"':
		s, ok := jsonString(raw)
		if !ok {
			return id, nullID, bad
		}
		id, _ = jsonrpc.MakeID(s)
		return id, raw, ""
	case c == '-' || (c >= '0' && c <= '9'):
		// A JSON number, as encoding/json reads it into a float64.
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExactID {
			return id, raw, fmt.Sprintf("%s of at most %d in magnitude", bad, int64(maxExactID))
		}
		id, _ = jsonrpc.MakeID(f)
		return id, raw, ""
	}
	return id, nullID, bad
}

// request checks a message with a method: a call or a notification.
func request(m *envelope, id jsonrpc.ID, echo json.RawMessage) (jsonrpc.Message, *errorAnswer) {
	method, ok := jsonString(m.Method)
	if !ok || method == "" {
		return nil, invalid(echo, `"method" must be a non-empty string`)
	}
	params := m.Params
	switch {
	case len(params) == 0 || string(params) == "null":
		params = nil
	case params[0] != '{' && params[0] != '[':
		return nil, invalid(echo, `"params" must be an object or an array`)
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: params}, nil
}

// response checks a message without a method: the client's answer to a
// request of the server.
func response(m *envelope, id jsonrpc.ID, echo json.RawMessage) (jsonrpc.Message, *errorAnswer) {
	if m.ID == nil {
		return nil, invalid(nullID, `a message needs a "method", or an "id" and a "result" or an "error"`)
	}
	result, hasResult := m.Result, m.Result != nil
	rawErr, hasErr := m.Error, m.Error != nil
	if string(rawErr) == "null" {
		hasErr = false
	}
	if hasResult == hasErr {
		return nil, invalid(echo, `a response needs either a "result" or an "error"`)
	}
	if !hasErr {
		return &jsonrpc.Response{ID: id, Result: result}, nil
	}
	var e struct {
		Code    *float64        `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(rawErr, &e) != nil || e.Code == nil || e.Message == nil || *e.Code != math.Trunc(*e.Code) {
		return nil, invalid(echo, `"error" must be an object with an integer "code" and a string "message"`)
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: int64(*e.Code), Message: *e.Message, Data: e.Data}}, nil
}

// rejectBatch answers a batch (a JSON array). MCP has no batches since
// 2025-06-18: each call in it is answered -32600 with its id, each invalid
// member as it would be alone; notifications and responses get no answer
// (JSON-RPC answers a batch with an array, and with nothing at all when
// that would be empty). An empty batch is one invalid request.
func rejectBatch(line []byte) *rejection {
	var members []json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || len(members) == 0 {
		return invalid(nullID, "empty batch").rejection()
	}
	var answers []*errorAnswer
	for _, raw := range members {
		if a := batchMember(raw); a != nil {
			answers = append(answers, a)
		}
	}
	why := fmt.Sprintf("Invalid Request: a batch of %d messages (batches are not supported)", len(members))
	r := &rejection{code: jsonrpc.CodeInvalidRequest, why: why}
	if len(answers) > 0 {
		r.data, _ = json.Marshal(answers)
	}
	return r
}

// batchMember is the answer to one member of a batch, or nil.
func batchMember(raw json.RawMessage) *errorAnswer {
	msg, answer := decodeValue(raw)
	if answer != nil {
		return answer
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		id, _ := json.Marshal(req.ID.Raw())
		return invalid(id, "batches are not supported: send one message per line")
	}
	return nil
}
