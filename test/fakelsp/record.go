package fakelsp

import (
	"encoding/json"
	"fmt"
	"os"
)

// recorder appends received messages to the --record file, one JSON line
// per message, each written with one write call on a file opened with
// O_APPEND, so lines never interleave; a concurrent reader can still see
// the start of the line being written and must wait for its newline
// (testenv.Records does). It is used by the read loop only. A nil file
// records nothing.
type recorder struct {
	f *os.File
}

// recordLine is one line of the --record file.
type recordLine struct {
	Kind   string          `json:"kind"`
	Method string          `json:"method,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	Raw    string          `json:"raw,omitempty"`
}

// openRecorder opens path for appending; "" records nothing.
func openRecorder(path string) (*recorder, error) {
	if path == "" {
		return &recorder{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return &recorder{f: f}, nil
}

// record appends m.
func (r *recorder) record(m *message) {
	r.write(&recordLine{Kind: m.kind(), Method: m.Method, ID: m.ID, Params: m.Params, Result: m.Result, Error: m.Error})
}

// recordInvalid appends a frame whose body is not JSON, kind "invalid".
func (r *recorder) recordInvalid(body []byte) {
	r.write(&recordLine{Kind: "invalid", Raw: string(body)})
}

func (r *recorder) write(line *recordLine) {
	if r.f == nil {
		return
	}
	_, _ = r.f.Write(append(mustJSON(line), '\n'))
}

// close closes the file.
func (r *recorder) close() {
	if r.f != nil {
		_ = r.f.Close()
	}
}
