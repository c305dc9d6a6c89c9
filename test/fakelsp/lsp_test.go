package fakelsp

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInitializeCapabilities(t *testing.T) {
	sync := func(change int) map[string]any {
		return map[string]any{"openClose": true, "change": float64(change), "save": map[string]any{"includeText": false}}
	}
	pull := map[string]any{"identifier": "fake", "interFileDependencies": false, "workspaceDiagnostics": false}
	tests := []struct {
		name      string
		args      []string
		encodings []string
		want      map[string]any // capabilities beyond the navigation ones
	}{
		{"default", nil, nil, map[string]any{"textDocumentSync": sync(2)}},
		{"sync full", []string{"--sync", "full"}, nil, map[string]any{"textDocumentSync": sync(1)}},
		{"sync none", []string{"--sync", "none"}, nil, map[string]any{"textDocumentSync": sync(0)}},
		{"pull", []string{"--pull"}, nil, map[string]any{"textDocumentSync": sync(2), "diagnosticProvider": pull}},
		{"pull register", []string{"--pull", "--pull-register"}, nil, map[string]any{"textDocumentSync": sync(2)}},
		{"utf-8 offered", []string{"--position-encoding", "utf-8"}, []string{"utf-8", "utf-16"},
			map[string]any{"textDocumentSync": sync(2), "positionEncoding": "utf-8"}},
		{"utf-8 not offered", []string{"--position-encoding", "utf-8"}, []string{"utf-16"},
			map[string]any{"textDocumentSync": sync(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, tt.args...)
			got := c.initialize(tt.encodings...)
			want := map[string]any{
				"capabilities": tt.want,
				"serverInfo":   map[string]any{"name": "fakelsp", "version": "1"},
			}
			for _, p := range []string{"hover", "definition", "references", "implementation",
				"documentSymbol", "workspaceSymbol", "callHierarchy"} {
				tt.want[p+"Provider"] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("initialize result (-want +got):\n%s", diff)
			}
			if code := c.shutdownExit(); code != 0 {
				t.Errorf("exit code = %d, want 0", code)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	t.Run("exit-code flag", func(t *testing.T) {
		c := start(t, "--exit-code", "7")
		c.initialize()
		if code := c.shutdownExit(); code != 7 {
			t.Errorf("exit code = %d, want 7", code)
		}
	})
	t.Run("input closed without shutdown", func(t *testing.T) {
		c := start(t)
		c.initialize()
		_ = c.closer.Close()
		if code := c.wait(); code != 1 {
			t.Errorf("exit code = %d, want 1", code)
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		stderr := newSyncBuffer()
		if code := Main([]string{"--sync", "sideways"}, nil, nil, stderr); code != 2 {
			t.Errorf("Main(--sync sideways) = %d, want 2", code)
		}
	})
}

func TestNavigation(t *testing.T) {
	location := `[{"uri":"file:///b.go","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}]`
	file := filepath.Join(t.TempDir(), "responses.json")
	if err := os.WriteFile(file, []byte(`{"textDocument/definition":`+location+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, "--responses", file)
	c.initialize()
	pos := map[string]any{"textDocument": map[string]any{"uri": "file:///a.go"}, "position": map[string]any{"line": 0, "character": 0}}
	tests := []struct {
		method     string
		wantResult string
		wantCode   int
	}{
		{"textDocument/definition", location, 0},
		{"textDocument/references", "null", 0},
		{"textDocument/hover", `{"contents":{"kind":"markdown","value":"fake hover"}}`, 0},
		{"textDocument/diagnostic", "", codeMethodNotFound},
		{"fake/unknown", "", codeMethodNotFound},
		{"fake/documentText", "", codeInvalidParams},
	}
	for _, tt := range tests {
		resp := c.call(tt.method, pos)
		if code := c.errorCode(resp); code != tt.wantCode {
			t.Errorf("%s: error code = %d, want %d", tt.method, code, tt.wantCode)
		}
		if string(resp.Result) != tt.wantResult {
			t.Errorf("%s: result = %s, want %s", tt.method, resp.Result, tt.wantResult)
		}
	}
	c.shutdownExit()
}

func TestServerRequestsAndRecord(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record.jsonl")
	c := start(t, "--record", record,
		"--server-request", `workspace/a={"x":1}`, "--server-request", "workspace/b=[]", "--server-request", "workspace/c=null")
	c.initialize()
	for _, want := range []struct{ method, id, params string }{
		{"workspace/a", "0", `{"x":1}`}, {"workspace/b", `"s-1"`, "[]"}, {"workspace/c", "2", ""},
	} {
		m := c.awaitMethod(want.method)
		if string(m.ID) != want.id || string(m.Params) != want.params {
			t.Errorf("%s: id %s params %s, want id %s params %s", want.method, m.ID, m.Params, want.id, want.params)
		}
		c.reply(m.ID, "ok")
	}
	c.shutdownExit()
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range splitLines(t, data) {
		var l recordLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		got = append(got, l.Kind+" "+l.Method+" "+string(l.ID)+" "+string(l.Result))
	}
	want := []string{
		"request initialize 1 ", "notification initialized  ",
		`response  0 "ok"`, `response  "s-1" "ok"`, `response  2 "ok"`,
		"request shutdown 2 ", "notification exit  ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

// splitLines splits a record file into its lines, which must all end.
func splitLines(t *testing.T, data []byte) []string {
	t.Helper()
	var lines []string
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != '\n' {
			i++
		}
		if i == len(data) {
			t.Fatalf("record ends with a partial line %q", data)
		}
		lines = append(lines, string(data[:i]))
		data = data[i+1:]
	}
	return lines
}

func TestConfigFirst(t *testing.T) {
	c := start(t, "--config-first")
	id := c.request("initialize", map[string]any{"capabilities": map[string]any{}})
	conf := c.awaitMethod("workspace/configuration")
	want := `{"items":[{"section":"fake"},{"section":"fake.nested"},{"section":"absent"}]}`
	if string(conf.Params) != want {
		t.Errorf("workspace/configuration params = %s, want %s", conf.Params, want)
	}
	c.mu.Lock()
	early := len(c.got)
	c.mu.Unlock()
	if early != 1 {
		t.Errorf("got %d messages before answering workspace/configuration, want 1", early)
	}
	c.reply(conf.ID, []any{map[string]any{}, map[string]any{}, nil})
	if resp := c.awaitResponse(id); resp.Error != nil {
		t.Errorf("initialize error %s", resp.Error)
	}
	c.shutdownExit()
}

func TestProgressAndRegistration(t *testing.T) {
	c := start(t, "--progress", "1ms", "--pull-register")
	c.initialize()
	reg := c.awaitMethod("client/registerCapability")
	wantReg := `{"registrations":[{"id":"fake-pull","method":"textDocument/diagnostic",` +
		`"registerOptions":{"identifier":"fake","interFileDependencies":false,"workspaceDiagnostics":false}}]}`
	if string(reg.Params) != wantReg {
		t.Errorf("registerCapability params = %s, want %s", reg.Params, wantReg)
	}
	c.reply(reg.ID, nil)
	create := c.awaitMethod("window/workDoneProgress/create")
	if string(create.Params) != `{"token":"fake-index"}` {
		t.Errorf("create params = %s", create.Params)
	}
	c.reply(create.ID, nil)
	for _, kind := range []string{"begin", "end"} {
		p := c.awaitMethod("$/progress")
		var v struct{ Token, Value struct{ Kind string } }
		_ = json.Unmarshal(p.Params, &v)
		if v.Value.Kind != kind {
			t.Errorf("$/progress %s, want kind %s", p.Params, kind)
		}
	}
	c.shutdownExit()
}

func TestListenUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fake.sock")
	stderr := newSyncBuffer()
	done := make(chan int, 1)
	go func() { // lives until the session below ends with exit
		done <- run([]string{"--listen", "unix:" + path}, nil, nil, stderr, env{exit: func(int) {}})
	}()
	stderr.await(t, "fakelsp: listening on unix:")
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, conn, conn, stderr)
	c.exited = done
	c.initialize()
	if code := c.shutdownExit(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}
