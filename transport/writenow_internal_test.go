package transport

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// pipeConn is a Conn writing to a pipe nobody reads yet, and the pipe's
// read end as frames.
func pipeConn(t *testing.T) (*Conn, *frameStream) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &Conn{stream: newFrameStream(&pipeRWC{r: r, w: w}, 1<<30, time.Minute)}
	c.stream.out = w
	if c.stream.now = newNowWriter(w); c.stream.now == nil {
		t.Fatal("a pipe's write end cannot be written without waiting")
	}
	c.life, c.cancel = context.WithCancel(context.Background())
	c.out = newOutbox(10000)
	go c.out.run(c.life, c.Err)
	t.Cleanup(func() {
		c.cancel()
		c.out.wait()
		w.Close()
		r.Close()
	})
	return c, newFrameStream(&pipeRWC{r: r}, 1<<30, time.Minute)
}

// TestSendersWriteThemselvesWhenTheWayIsFree: with nothing queued a
// notification is written on the sender's goroutine; behind a queued one
// it waits its turn in the outbox.
func TestSendersWriteThemselvesWhenTheWayIsFree(t *testing.T) {
	c, in := pipeConn(t)
	if !c.writeNow(nil, "a", wireParams{}, nil) {
		t.Fatal("nothing queued, nobody writing: not written by the sender")
	}
	c.out.mu.Lock()
	c.out.busy = true // the writer's turn
	c.out.mu.Unlock()
	if c.writeNow(nil, "b", wireParams{}, nil) {
		t.Fatal("written while another write was under way")
	}
	if c.writeNow(nil, "c", wireParams{}, func() bool { return false }) {
		t.Fatal("written while another write was under way")
	}
	c.out.mu.Lock()
	c.out.busy = false
	c.out.mu.Unlock()
	if !c.writeNow(nil, "d", wireParams{}, func() bool { return false }) {
		t.Fatal("the way free: the turn was not taken")
	}
	msg, _, err := in.Read(context.Background())
	if n, ok := msg.(*jsonrpc2.Notification); err != nil || !ok || n.Method() != "a" {
		t.Fatalf("read %#v, %v; want notification a", msg, err)
	}
	// d was dropped (not live): nothing else is in the pipe.
	if err := c.Notify("e", nil); err != nil {
		t.Fatal(err)
	}
	if msg, _, err := in.Read(context.Background()); err != nil || msg.(*jsonrpc2.Notification).Method() != "e" {
		t.Fatalf("read %#v, %v; want notification e", msg, err)
	}
}

// TestPassedWriteDeadlineDoesNotFailTheSender: a blocking write leaves
// its deadline on the pipe; once that has passed (10 s after the writer's
// last write), a sender's own write clears it instead of failing and
// ending the connection.
func TestPassedWriteDeadlineDoesNotFailTheSender(t *testing.T) {
	c, in := pipeConn(t)
	if err := c.stream.out.(*os.File).SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if !c.writeNow(nil, "late", wireParams{}, nil) {
		t.Fatal("not written by the sender")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the connection ended: %v", err)
	}
	if msg, _, err := in.Read(context.Background()); err != nil || msg.(*jsonrpc2.Notification).Method() != "late" {
		t.Fatalf("read %#v, %v; want notification late", msg, err)
	}
}

// TestWhatThePipeDidNotTakeGoesFirst: a frame the pipe takes only part
// of has its rest queued ahead of anything sent after it, and arrives
// whole.
func TestWhatThePipeDidNotTakeGoesFirst(t *testing.T) {
	c, in := pipeConn(t)
	pad := strings.Repeat("y", maxWriteNow-100)
	sent, partial := 0, false
	for !partial && sent < 10 { // a pipe holds 64 KiB: the third frame at most
		if err := c.Notify("big", map[string]any{"i": sent, "pad": pad}); err != nil {
			t.Fatal(err)
		}
		sent++
		c.out.mu.Lock()
		partial = len(c.out.ops) > 0 || c.out.busy // the rest, queued for the writer (or being written)
		c.out.mu.Unlock()
	}
	if !partial {
		t.Fatalf("%d frames of %d KiB all went whole into the pipe", sent, maxWriteNow>>10)
	}
	if err := c.Notify("after", nil); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		msg, _, err := in.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			I   int
			Pad string
		}
		n := msg.(*jsonrpc2.Notification)
		if err := json.Unmarshal(n.Params(), &p); err != nil || n.Method() != "big" || p.I != i || p.Pad != pad {
			t.Fatalf("frame %d: %s %d (%d bytes), %v", i, n.Method(), p.I, len(p.Pad), err)
		}
	}
	if msg, _, err := in.Read(context.Background()); err != nil || msg.(*jsonrpc2.Notification).Method() != "after" {
		t.Fatalf("read %#v, %v; want notification after", msg, err)
	}
}

// TestNotifyNeverWaitsForTheServer: senders on four goroutines write
// notifications of 10 B to 200 KiB (past a pipe's 64 KiB buffer: written
// by the writer) while nobody
// reads: every Notify returns, and once the pipe is read every
// notification arrives whole, each sender's in its order.
func TestNotifyNeverWaitsForTheServer(t *testing.T) {
	c, in := pipeConn(t)
	const senders, each = 4, 40
	sizes := []int{10, 3000, 30 << 10, 200 << 10, 1}
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				pad := strings.Repeat("x", sizes[(g+i)%len(sizes)])
				if err := c.Notify("n", map[string]any{"g": g, "i": i, "pad": pad}); err != nil {
					t.Errorf("Notify: %v", err)
				}
			}
		})
	}
	sent := make(chan struct{})
	go func() { wg.Wait(); close(sent) }()
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		t.Fatal("Notify waited for the server to read")
	}
	next := make([]int, senders)
	for range senders * each {
		msg, _, err := in.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			G, I int
			Pad  string
		}
		if err := json.Unmarshal(msg.(*jsonrpc2.Notification).Params(), &p); err != nil {
			t.Fatal(err)
		}
		if p.I != next[p.G] || len(p.Pad) != sizes[(p.G+p.I)%len(sizes)] {
			t.Fatalf("sender %d: got notification %d (%d bytes), want %d (%d bytes)", p.G, p.I, len(p.Pad), next[p.G], sizes[(p.G+next[p.G])%len(sizes)])
		}
		next[p.G]++
	}
}
