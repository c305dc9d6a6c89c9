package fakelsp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var hoverParams = map[string]any{
	"textDocument": map[string]any{"uri": uriA},
	"position":     map[string]any{"line": 0, "character": 0},
}

func TestContentModified(t *testing.T) {
	c := start(t, "--content-modified", "textDocument/hover=2")
	c.initialize()
	for i, want := range []int{codeContentModified, codeContentModified, 0} {
		if code := c.errorCode(c.call("textDocument/hover", hoverParams)); code != want {
			t.Errorf("hover %d: error code %d, want %d", i, code, want)
		}
	}
	c.shutdownExit()
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		method string
	}{
		{"hang-on", []string{"--hang-on", "textDocument/hover"}, "textDocument/hover"},
		{"delay", []string{"--delay", "textDocument/hover=1h"}, "textDocument/hover"},
		{"garbage-on", []string{"--garbage-on", "textDocument/hover"}, "textDocument/hover"},
		{"ignore-shutdown", []string{"--ignore-shutdown"}, "shutdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, tt.args...)
			c.initialize()
			id := c.request(tt.method, hoverParams)
			c.notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
			if code := c.errorCode(c.awaitResponse(id)); code != codeRequestCancelled {
				t.Errorf("cancelled %s: error code %d, want %d", tt.method, code, codeRequestCancelled)
			}
			c.notify("exit", nil) // ignored with --ignore-shutdown
			if tt.method == "shutdown" {
				if code := c.errorCode(c.call("fake/documentText", map[string]any{"uri": uriA})); code != codeInvalidParams {
					t.Errorf("after exit: fake/documentText code %d, want %d", code, codeInvalidParams)
				}
				_ = c.closer.Close()
			}
			if code := c.wait(); code != map[bool]int{true: 1, false: 0}[tt.method == "shutdown"] {
				t.Errorf("exit code %d", code)
			}
		})
	}
}

func TestBadFrames(t *testing.T) {
	c := start(t, "--garbage-on", "fake/garbage", "--oversize-on", "textDocument/hover=4096",
		"--invalid-utf8-on", "textDocument/definition", "--unknown-response")
	c.initialize()
	if m := c.awaitResponse(json.RawMessage("987654")); string(m.Result) != "null" {
		t.Errorf("unknown response result = %s, want null", m.Result)
	}
	c.request("fake/garbage", nil)
	c.awaitFrame("garbage", func(r *received) bool { return string(r.raw) == "{not json!!" })

	id := c.request("textDocument/hover", hoverParams)
	big := c.awaitFrame("oversize", func(r *received) bool { return r.valid && idKey(r.msg.ID) == idKey(id) })
	if len(big.raw) != 4096 || !bytes.HasSuffix(bytes.TrimRight(big.raw, " "), []byte("}")) {
		t.Errorf("oversize body is %d bytes: %q, want 4096 bytes of JSON and spaces", len(big.raw), big.raw)
	}

	id = c.request("textDocument/definition", hoverParams)
	bad := c.awaitFrame("invalid utf-8", func(r *received) bool { return bytes.Contains(r.raw, []byte(`"id":`+string(id))) })
	if utf8.Valid(bad.raw) || !bytes.Contains(bad.raw, []byte{0xff, 0xfe}) {
		t.Errorf("invalid-utf8 body %q has no invalid UTF-8", bad.raw)
	}
	c.shutdownExit()
}

func TestCrashAndExitOn(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantLog  string
	}{
		{[]string{"--crash-after", "2"}, 2, "fakelsp: crashing after 2 messages"},
		{[]string{"--exit-on", "initialized"}, 3, "fakelsp: exiting on initialized"},
	}
	for _, tt := range tests {
		c := start(t, tt.args...)
		c.call("initialize", map[string]any{"capabilities": map[string]any{}})
		c.notify("initialized", map[string]any{})
		if code := c.wait(); code != tt.wantCode {
			t.Errorf("%v: code %d, want %d", tt.args, code, tt.wantCode)
		}
		if !strings.Contains(c.stderr.String(), tt.wantLog) {
			t.Errorf("%v: stderr lacks %q:\n%s", tt.args, tt.wantLog, c.stderr)
		}
	}
}

func TestStopReadingAndStderr(t *testing.T) {
	c := start(t, "--stop-reading-after", "2", "--stderr", "hello from fake", "--stderr", "second line")
	c.initialize()
	c.stderr.await(t, "fakelsp: stopped reading after 2 messages")
	for _, want := range []string{"fakelsp: started pid=", "hello from fake\nsecond line\n"} {
		if !strings.Contains(c.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, c.stderr)
		}
	}
}
