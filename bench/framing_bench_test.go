package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/transport"
)

// JSON-RPC framing: transport.Conn (Content-Length frames, jsonrpc2, the
// ordered outbox and its writer, one waiter per call) against a tiny
// in-process peer on a real unix socket, which echoes each request's
// params as its result and counts notifications. The floor is the same
// peer driven by a bare client that writes and reads frames itself.

var frameSizes = []int{100, 10 << 10, 1 << 20}

// echoPeer is the in-process peer: one connection, served until it closes.
type echoPeer struct {
	addr     string
	notified atomic.Int64
	done     chan struct{}
}

// startEchoPeer listens on a unix socket and serves one connection.
func startEchoPeer(tb testing.TB) *echoPeer {
	dir, err := os.MkdirTemp("", "agentlsp-bench")
	if err != nil {
		tb.Fatal(err)
	}
	p := &echoPeer{addr: filepath.Join(dir, "peer.sock"), done: make(chan struct{})}
	ln, err := net.Listen("unix", p.addr)
	if err != nil {
		tb.Fatal(err)
	}
	// The peer lives until its connection closes; the cleanup joins it.
	go func() {
		defer close(p.done)
		conn, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer conn.Close()
		p.serve(conn)
	}()
	tb.Cleanup(func() {
		ln.Close()
		<-p.done
		os.RemoveAll(dir)
	})
	return p
}

// serve answers requests with their params and counts notifications.
func (p *echoPeer) serve(rw io.ReadWriter) {
	in := bufio.NewReaderSize(rw, 64<<10)
	for {
		body, err := readFrame(in)
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil {
			return
		}
		if m.ID == nil {
			p.notified.Add(1)
			continue
		}
		if len(m.Params) == 0 {
			m.Params = json.RawMessage("null")
		}
		reply, _ := json.Marshal(map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": m.ID, "result": m.Params})
		if writeFrame(rw, reply) != nil {
			return
		}
	}
}

// readFrame reads one Content-Length frame's body.
func readFrame(in *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(in, body)
	return body, err
}

// writeFrame writes body as one frame, in one write.
func writeFrame(w io.Writer, body []byte) error {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	_, err := w.Write(append(frame, body...))
	return err
}

// payload is request params of about size bytes.
func payload(size int) json.RawMessage {
	raw, _ := json.Marshal(map[string]string{"data": strings.Repeat("x", size)})
	return raw
}

// peerConn connects a transport.Conn to a new echo peer.
func peerConn(b *testing.B) (*transport.Conn, *echoPeer) {
	p := startEchoPeer(b)
	c, err := transport.Start(context.Background(), transport.Options{Network: "unix", Address: p.addr})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Kill(); <-c.Done() })
	return c, p
}

// BenchmarkFramingCall is a request round trip through transport.Conn.
func BenchmarkFramingCall(b *testing.B) {
	for _, size := range frameSizes {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			c, _ := peerConn(b)
			params := payload(size)
			b.SetBytes(2 * int64(len(params)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Call(context.Background(), "bench/echo", params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFramingCallParallel: concurrent calls on one connection.
func BenchmarkFramingCallParallel(b *testing.B) {
	c, _ := peerConn(b)
	params := payload(100)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Call(context.Background(), "bench/echo", params); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkFramingNotify is one-way notification throughput: Notify
// queues, the writer frames and writes, the peer reads (waited for at the
// end, and whenever a window of at most 1024 frames or 4 MiB is
// outstanding, below the outbox bound).
func BenchmarkFramingNotify(b *testing.B) {
	for _, size := range frameSizes {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			c, p := peerConn(b)
			params := payload(size)
			b.SetBytes(int64(len(params)))
			b.ReportAllocs()
			window := int64(max(1, min(1024, (4<<20)/len(params))))
			var sent int64
			for b.Loop() {
				if err := c.Notify("bench/note", params); err != nil {
					b.Fatal(err)
				}
				if sent++; sent-p.notified.Load() >= window {
					waitNotified(b, p, sent-window/2)
				}
			}
			waitNotified(b, p, sent)
		})
	}
}

// waitNotified waits until the peer has read n notifications.
func waitNotified(b *testing.B, p *echoPeer, n int64) {
	deadline := time.Now().Add(askTimeout)
	for p.notified.Load() < n {
		if time.Now().After(deadline) {
			b.Fatalf("peer read %d notifications, want %d", p.notified.Load(), n)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// BenchmarkFramingFloor is BenchmarkFramingCall's floor: the same round
// trip written and read by hand on the same kind of socket and peer.
func BenchmarkFramingFloor(b *testing.B) {
	for _, size := range frameSizes {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			p := startEchoPeer(b)
			conn, err := net.Dial("unix", p.addr)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { conn.Close() }) // before the peer's cleanup: it ends the peer
			in := bufio.NewReaderSize(conn, 64<<10)
			params := payload(size)
			b.SetBytes(2 * int64(len(params)))
			b.ReportAllocs()
			id := 0
			for b.Loop() {
				id++
				req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "bench/echo", "params": params})
				if err := writeFrame(conn, req); err != nil {
					b.Fatal(err)
				}
				var resp struct {
					Result json.RawMessage `json:"result"`
				}
				body, err := readFrame(in)
				if err == nil {
					err = json.Unmarshal(body, &resp)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
