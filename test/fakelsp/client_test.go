package fakelsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitLimit bounds every wait of the tests; it is a deadline, not a sleep.
const waitLimit = 10 * time.Second

// testClient is a tiny LSP client for the fake, over a real stream. Its
// read loop goroutine lives until the server side of the stream closes; the
// cleanup registered by newClient closes the client side and joins it.
type testClient struct {
	t      *testing.T
	out    *frameWriter
	closer io.Closer
	stderr *syncBuffer
	exited chan int // run's code, when start ran the server
	halt   chan struct{}

	mu       sync.Mutex
	got      []*received   // guarded by mu
	signal   chan struct{} // poked after each message
	readDone chan struct{}
	nextID   int
	code     *int
}

// received is one frame from the fake.
type received struct {
	raw   []byte
	msg   message
	valid bool
	taken bool
}

// start runs the fake in-process with args over a pair of pipes.
func start(t *testing.T, args ...string) *testClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := newClient(t, outR, inW, newSyncBuffer())
	c.exited = make(chan int, 1)
	e := env{exit: func(int) {}, halt: c.halt}
	go func() { // lives until run returns: on exit, or when the cleanup closes inW
		code := run(args, inR, outW, c.stderr, e)
		_ = inR.Close()
		_ = outW.Close()
		c.exited <- code
	}()
	return c
}

// newClient reads frames from from and writes to to.
func newClient(t *testing.T, from io.Reader, to io.WriteCloser, stderr *syncBuffer) *testClient {
	c := &testClient{
		t: t, out: &frameWriter{w: to}, closer: to, stderr: stderr,
		halt: make(chan struct{}), signal: make(chan struct{}, 1), readDone: make(chan struct{}),
	}
	go c.readLoop(from) // lives until the server closes its side
	t.Cleanup(c.close)
	return c
}

func (c *testClient) readLoop(from io.Reader) {
	defer close(c.readDone)
	r := bufio.NewReader(from)
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		rec := &received{raw: body}
		rec.valid = json.Unmarshal(body, &rec.msg) == nil
		c.mu.Lock()
		c.got = append(c.got, rec)
		c.mu.Unlock()
		poke(c.signal)
	}
}

// close ends the session and joins the goroutines.
func (c *testClient) close() {
	close(c.halt)
	_ = c.closer.Close()
	if c.exited != nil && c.code == nil {
		c.wait()
	}
	select {
	case <-c.readDone:
	case <-time.After(waitLimit):
		c.t.Errorf("client read loop did not end")
	}
}

// wait returns run's exit code.
func (c *testClient) wait() int {
	c.t.Helper()
	if c.code != nil {
		return *c.code
	}
	select {
	case code := <-c.exited:
		c.code = &code
		return code
	case <-time.After(waitLimit):
		c.t.Fatalf("fake did not exit; stderr:\n%s", c.stderr)
		return 0
	}
}

// send writes one message.
func (c *testClient) send(m *message) {
	c.t.Helper()
	m.JSONRPC = "2.0"
	if err := c.out.writeFrame(mustJSON(m)); err != nil {
		c.t.Fatalf("send %s: %v", m.Method, err)
	}
}

// request sends a request and returns its id.
func (c *testClient) request(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	id := mustJSON(c.nextID)
	c.send(&message{ID: id, Method: method, Params: paramsJSON(params)})
	return id
}

// call sends a request and awaits its response.
func (c *testClient) call(method string, params any) *message {
	c.t.Helper()
	return c.awaitResponse(c.request(method, params))
}

// notify sends a notification.
func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	c.send(&message{Method: method, Params: paramsJSON(params)})
}

// reply answers a request of the fake.
func (c *testClient) reply(id json.RawMessage, result any) {
	c.t.Helper()
	c.send(&message{ID: id, Result: mustJSON(result)})
}

// paramsJSON encodes params, leaving nil out.
func paramsJSON(params any) json.RawMessage {
	if params == nil {
		return nil
	}
	return mustJSON(params)
}

// awaitResponse awaits the response to id.
func (c *testClient) awaitResponse(id json.RawMessage) *message {
	c.t.Helper()
	return c.await("response to "+string(id), func(m *message) bool {
		return m.kind() == "response" && idKey(m.ID) == idKey(id)
	})
}

// awaitMethod awaits a request or notification from the fake.
func (c *testClient) awaitMethod(method string) *message {
	c.t.Helper()
	return c.await(method, func(m *message) bool { return m.Method == method })
}

// await takes the first message not yet taken that matches.
func (c *testClient) await(what string, match func(*message) bool) *message {
	c.t.Helper()
	rec := c.awaitFrame(what, func(r *received) bool { return r.valid && match(&r.msg) })
	return &rec.msg
}

// awaitFrame takes the first frame not yet taken that matches.
func (c *testClient) awaitFrame(what string, match func(*received) bool) *received {
	c.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		if rec := c.take(match); rec != nil {
			return rec
		}
		select {
		case <-c.signal:
		case <-deadline.C:
			c.t.Fatalf("timed out waiting for %s; stderr:\n%s", what, c.stderr)
		}
	}
}

func (c *testClient) take(match func(*received) bool) *received {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rec := range c.got {
		if !rec.taken && match(rec) {
			rec.taken = true
			return rec
		}
	}
	return nil
}

// count counts the frames not yet taken whose method is method.
func (c *testClient) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, rec := range c.got {
		if !rec.taken && rec.valid && rec.msg.Method == method {
			n++
		}
	}
	return n
}

// initialize runs the initialize handshake and returns the result.
func (c *testClient) initialize(encodings ...string) map[string]any {
	c.t.Helper()
	params := map[string]any{"capabilities": map[string]any{}}
	if len(encodings) > 0 {
		params["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": encodings}}
	}
	var result map[string]any
	c.decode(c.call("initialize", params).Result, &result)
	c.notify("initialized", map[string]any{})
	return result
}

// shutdownExit ends the session politely and returns the exit code.
func (c *testClient) shutdownExit() int {
	c.t.Helper()
	resp := c.call("shutdown", nil)
	if string(resp.Result) != "null" || resp.Error != nil {
		c.t.Errorf("shutdown = %s %s, want null", resp.Result, resp.Error)
	}
	c.notify("exit", nil)
	return c.wait()
}

// decode unmarshals raw into v or fails the test.
func (c *testClient) decode(raw json.RawMessage, v any) {
	c.t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		c.t.Fatalf("decode %s: %v", raw, err)
	}
}

// errorCode is the code of a response's error, or 0.
func (c *testClient) errorCode(m *message) int {
	c.t.Helper()
	if m.Error == nil {
		return 0
	}
	var e rpcError
	c.decode(m.Error, &e)
	return e.Code
}

// syncBuffer is a stderr that tests can read and await while it is written.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	signal chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{signal: make(chan struct{}, 1)} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer poke(b.signal)
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// await waits until the buffer contains s.
func (b *syncBuffer) await(t *testing.T, s string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for !strings.Contains(b.String(), s) {
		select {
		case <-b.signal:
		case <-deadline.C:
			t.Fatalf("stderr never had %q; it has:\n%s", s, b)
		}
	}
}

// poke signals ch without blocking.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
