package fakelsp

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadFrame(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"Content-Length: 2\r\n\r\n{}", "{}", nil},
		{"content-length:2\r\nContent-Type: x\r\n\r\n[]", "[]", nil},
		{"", "", io.EOF},
		{"Content-Length: 2\r\n", "", io.ErrUnexpectedEOF},
		{"Content-Length: 5\r\n\r\n{}", "", io.ErrUnexpectedEOF},
		{"Content-Type: x\r\n\r\n{}", "", errFrameHeader},
		{"Content-Length: -1\r\n\r\n", "", errFrameHeader},
		{"garbage\r\n\r\n", "", errFrameHeader},
		{"Content-Length: 999999999999\r\n\r\n", "", errFrameSize},
	}
	for _, tt := range tests {
		got, err := readFrame(bufio.NewReader(strings.NewReader(tt.in)))
		if string(got) != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("readFrame(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add("Content-Length: 2\r\n\r\n{}")
	f.Add("Content-Length: 0\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		body, err := readFrame(bufio.NewReader(strings.NewReader(in)))
		if err == nil && len(body) > len(in) {
			t.Errorf("readFrame(%q) returned %d bytes from %d", in, len(body), len(in))
		}
	})
}

func TestParseFlags(t *testing.T) {
	good := [][]string{
		{"--delay", "a=1s", "--delay", "b=2ms", "--content-modified", "x=3", "--oversize-on", "y=10"},
		{"--server-request", `m={"a":"b=c"}`, "--server-request", "n="},
		{"--listen", "tcp:127.0.0.1:0", "--sync", "none"},
	}
	for _, args := range good {
		if _, err := parseFlags(args, io.Discard); err != nil {
			t.Errorf("parseFlags(%q) = %v, want nil", args, err)
		}
	}
	bad := [][]string{
		{"--delay", "a"}, {"--delay", "a=soon"}, {"--content-modified", "x=-1"},
		{"--server-request", "m={"}, {"--listen", "pipe:x"}, {"--sync", "sideways"},
		{"--position-encoding", "utf-32"}, {"--responses", "/nonexistent/file"}, {"stray"},
	}
	for _, args := range bad {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) = nil error, want an error", args)
		}
	}
}
