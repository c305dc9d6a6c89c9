package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/mcp"
)

// TestStdioLineLimit: a line longer than MaxMessageSize is answered -32600
// and skipped; a line of exactly the limit is served, with "\n" or "\r\n".
func TestStdioLineLimit(t *testing.T) {
	const limit = 1024
	c := serveLines(t, start(t, "gonav", agentlsp.Config{}), func(tr *mcp.StdioTransport) { tr.MaxMessageSize = limit })
	request := func(id int, size int) string {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id)
		return msg + strings.Repeat(" ", size-len(msg))
	}
	tooLong := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`
	tooLongID := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600}}` }
	big := strings.Repeat("x", 3<<20)
	for _, tc := range []struct {
		line string
		want string // "" when the line is served
	}{
		{request(1, limit), ""},
		{request(2, limit) + "\r", ""},
		// The id, when the line's head has it, so the call is answered.
		{request(3, limit+1), tooLongID("3")},
		{request(4, limit+1) + "\r", tooLongID("4")},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"id":7,"arguments":{"x":"` + big + `"}},"id":"late"}`, tooLong},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"id":7},"id":"s1","x":"` + big + `"}`, tooLongID(`"s1"`)},
		{`{"id":1.5,"x":"` + big + `"}`, tooLong},
		{`{"id":{"a":1},"x":"` + big + `"}`, tooLong},
		{strings.Repeat("x", 1<<20), tooLong},
		{"{" + strings.Repeat(" ", 3<<20) + "}", tooLong},
	} {
		c.send(tc.line)
		got := c.nextRaw()
		if tc.want == "" {
			if !strings.Contains(got, `"tools":[`) {
				t.Errorf("line of %d bytes answered %.200s, want tools", len(tc.line), got)
			}
			continue
		}
		var want any
		json.Unmarshal([]byte(tc.want), &want)
		if diff := cmp.Diff(want, withoutMessages(t, got)); diff != "" {
			t.Errorf("line of %d bytes (-want +got):\n%s", len(tc.line), diff)
		}
		c.toolsList(t, 100)
	}
}

// TestStdioDefaultLineLimit: the default limit is DefaultMaxMessageSize: a
// line one byte over it is refused, a message of a few MiB is served.
func TestStdioDefaultLineLimit(t *testing.T) {
	c := serveLines(t, start(t, "gonav", agentlsp.Config{}), nil)
	ping := func(size int) string {
		head := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`
		return head + strings.Repeat("x", size-len(head)-3) + `"}}`
	}
	c.send(ping(4 << 20))
	if res := c.next(); res["id"] != "big" || res["result"] == nil {
		t.Errorf("ping of %d bytes answered %v, want a result", 4<<20, res)
	}
	c.send(ping(mcp.DefaultMaxMessageSize + 1))
	if res := c.next(); res["id"] != "big" || res["error"].(map[string]any)["code"] != float64(-32600) {
		t.Errorf("ping of %d bytes answered %v, want -32600 with its id", mcp.DefaultMaxMessageSize+1, res)
	}
	c.toolsList(t, 1)
}

// TestStdioSkipsLongLinesWithoutHoldingThem: a 64 MiB line over a 1 KiB
// limit is skipped without being held in memory.
func TestStdioSkipsLongLinesWithoutHoldingThem(t *testing.T) {
	const size = 64 << 20
	in := io.MultiReader(strings.NewReader(`{"pad":"`), &repeatReader{b: 'x', n: size},
		strings.NewReader("\"}\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"))
	var out strings.Builder
	tr := &mcp.StdioTransport{In: in, Out: &out, MaxMessageSize: 1024}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatalf("Read = %v, want the ping", err)
	}
	runtime.ReadMemStats(&after)
	if got, _ := jsonrpc.EncodeMessage(msg); string(got) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("Read = %s, want the ping", got)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("skipping a %d-byte line allocated %d bytes", size, alloc)
	if alloc > size/8 {
		t.Errorf("skipping a %d-byte line allocated %d bytes", size, alloc)
	}
	// The answer was written before the ping was read.
	checkJSONRPC(t, strings.TrimSuffix(out.String(), "\n"))
	if _, err := conn.Read(context.Background()); err != io.EOF {
		t.Errorf("Read at the end = %v, want EOF", err)
	}
}

// repeatReader reads n copies of b.
type repeatReader struct {
	b     byte
	n     int
	block []byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if r.block == nil {
		r.block = bytes.Repeat([]byte{r.b}, 64<<10)
	}
	n := copy(p[:min(len(p), r.n)], r.block)
	r.n -= n
	return n, nil
}

// FuzzStdioLines: whatever the input, a StdioTransport hands the SDK only
// messages it can encode, answers the rest with JSON-RPC errors, and ends
// with io.EOF.
func FuzzStdioLines(f *testing.F) {
	for _, bad := range badLines {
		f.Add([]byte(bad.line))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}` + "\r\n" + `{"jsonrpc":"2.0","id":2,"result":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out strings.Builder
		conn, err := (&mcp.StdioTransport{In: strings.NewReader(string(data)), Out: &out, MaxMessageSize: 4096}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for {
			msg, err := conn.Read(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Read = %v, want a message or EOF", err)
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("message %+v does not encode: %v", msg, err)
			}
		}
		for line := range strings.Lines(out.String()) {
			checkJSONRPC(t, strings.TrimSuffix(line, "\n"))
			if !strings.Contains(line, `"error":{"code":-32`) {
				t.Fatalf("answer %s is not a JSON-RPC error", line)
			}
		}
	})
}

// TestStdioConnectionEnds: Read reports the end of the input (io.EOF, or
// the error of a failed answer) every time it is called after it; after
// Close, Read reports io.EOF and Write fails.
func TestStdioConnectionEnds(t *testing.T) {
	ctx := context.Background()
	conn, err := mcp.NewStdioTransport(strings.NewReader(`{"jsonrpc":"2.0","method":"x"}`), io.Discard).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := conn.Read(ctx); err != nil || msg.(*jsonrpc.Request).Method != "x" {
		t.Fatalf("Read = %v, %v, want the last line without a newline", msg, err)
	}
	for range 2 {
		if _, err := conn.Read(ctx); err != io.EOF {
			t.Errorf("Read at the end = %v, want EOF", err)
		}
	}
	conn.Close()
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "y"}); err == nil {
		t.Error("Write after Close succeeded")
	}

	broken := errors.New("stdout is gone")
	conn, err = mcp.NewStdioTransport(strings.NewReader("not json\n"), failingWriter{broken}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Read(ctx); !errors.Is(err, broken) {
		t.Errorf("Read after a failed answer = %v, want %v", err, broken)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
