package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
)

func TestSection(t *testing.T) {
	settings := map[string]any{
		"gopls":           map[string]any{"ui": map[string]any{"codelens": false}},
		"python.analysis": map[string]any{"typeCheckingMode": "strict"},
	}
	tests := []struct {
		section string
		want    any
	}{
		{"gopls", settings["gopls"]},
		{"gopls.ui", map[string]any{"codelens": false}},
		{"gopls.ui.codelens", false},
		{"python.analysis", map[string]any{"typeCheckingMode": "strict"}},
		{"absent", map[string]any{}},
		{"gopls.absent.deeper", map[string]any{}},
		{"", settings},
	}
	for _, tc := range tests {
		if got := Section(settings, tc.section); !cmp.Equal(got, tc.want) {
			t.Errorf("Section(%q) = %v, want %v", tc.section, got, tc.want)
		}
	}
	if got := Section(nil, ""); !cmp.Equal(got, map[string]any{}) {
		t.Errorf("Section(nil, \"\") = %v, want {}", got)
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "PATH=/bin"}, []string{"B=3", "C=4"})
	want := []string{"A=1", "PATH=/bin", "B=3", "C=4"}
	if !cmp.Equal(got, want) {
		t.Errorf("mergeEnv = %v, want %v", got, want)
	}
}

func TestRingKeepsLastLines(t *testing.T) {
	r := newRing(3)
	r.readFrom(strings.NewReader("1\n2\n3\n4\n5\n"))
	if got, want := r.tail(), []string{"3", "4", "5"}; !cmp.Equal(got, want) {
		t.Errorf("tail = %v, want %v", got, want)
	}
	r2 := newRing(3)
	r2.readFrom(strings.NewReader(strings.Repeat("x", 5000) + "\nend\n"))
	tail := r2.tail()
	if len(tail) != 2 || len(tail[0]) > maxStderrLine+3 || tail[1] != "end" {
		t.Errorf("long line tail = %d lines, first %d bytes", len(tail), len(tail[0]))
	}
}

// rwc reads from in and records writes in out.
type rwc struct {
	in  io.Reader
	out bytes.Buffer
}

func (r *rwc) Read(b []byte) (int, error)  { return r.in.Read(b) }
func (r *rwc) Write(b []byte) (int, error) { return r.out.Write(b) }
func (*rwc) Close() error                  { return nil }

func TestFrameStream(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  error
	}{
		{"ok", "Content-Length: 37\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":0}", nil},
		{"case insensitive header", "content-length: 37\r\nContent-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":0}", nil},
		{"too large", "Content-Length: 1000000\r\n\r\n", ErrMessageTooLarge},
		{"missing length", "Foo: 1\r\n\r\n{}", ErrProtocol},
		{"bad length", "Content-Length: -5\r\n\r\n", ErrProtocol},
		{"not json", "Content-Length: 5\r\n\r\nhello", ErrProtocol},
		{"truncated", "Content-Length: 50\r\n\r\n{}", ErrProtocol},
		{"endless header", strings.Repeat("x", 10000), ErrProtocol},
	}
	for _, tc := range tests {
		s := newFrameStream(&rwc{in: strings.NewReader(tc.input)}, 1000, DefaultWriteTimeout)
		_, _, err := s.Read(context.Background())
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Read err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestFrameStreamWrite(t *testing.T) {
	var buf rwc
	s := newFrameStream(&buf, 1000, DefaultWriteTimeout)
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(0), "shutdown", nil)
	if _, err := s.Write(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	want := "Content-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"shutdown\"}"
	if got := buf.out.String(); got != want {
		t.Errorf("frame = %q, want %q", got, want)
	}
	// A round trip through Read gives the call back.
	r := newFrameStream(&rwc{in: strings.NewReader(buf.out.String())}, 1000, DefaultWriteTimeout)
	msg, _, err := r.Read(context.Background())
	if c, ok := msg.(*jsonrpc2.Call); err != nil || !ok || c.Method() != "shutdown" {
		t.Errorf("Read back = %#v, %v", msg, err)
	}
}

// FuzzFrameStream: no input makes Read panic, allocate past the limit, or
// return a message without an error it cannot re-encode.
func FuzzFrameStream(f *testing.F) {
	f.Add([]byte("Content-Length: 37\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":0}"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":1}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newFrameStream(&rwc{in: bytes.NewReader(data)}, 1<<16, DefaultWriteTimeout)
		for i := 0; i < 4; i++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				return
			}
			if _, err := encodeMessage(msg); err != nil {
				t.Fatalf("decoded %#v but cannot encode it: %v", msg, err)
			}
		}
	})
}
