//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// pollable returns the command's stdin and stdout switched to
// non-blocking mode when they are pipes or sockets, as an MCP client gives
// them. Reads and writes then wait in the Go runtime's poller instead of
// holding a thread in a blocking system call, and a message reaches its
// reader without the runtime taking the processor from that thread and
// handing it back (about 20 µs of each MCP call on a 2-vCPU VM,
// docs/BENCHMARKS.md). Terminals, files and anything but the process's own
// stdin and stdout are returned as they are: their mode is shared with
// other processes. The returned files must stay referenced while in use
// (closing one closes the descriptor).
func pollable(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	if f := nonBlocking(in, os.Stdin); f != nil {
		in = f
	}
	if f := nonBlocking(out, os.Stdout); f != nil {
		out = f
	}
	return in, out
}

// nonBlocking returns a new File for std's descriptor in non-blocking
// mode, or nil when v is not std or std is not a pipe or a socket.
func nonBlocking(v any, std *os.File) *os.File {
	if f, ok := v.(*os.File); !ok || f != std {
		return nil
	}
	fi, err := std.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	fd := std.Fd()
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		return nil
	}
	return os.NewFile(fd, std.Name()) // registered with the poller: non-blocking
}
