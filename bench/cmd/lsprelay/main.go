// Command lsprelay runs a program with its stdin and stdout relayed
// through this process, byte for byte: the least any process between a
// client and a language server can cost (two pipe hops and two wake-ups
// of a process per message, no parsing). mcpbench --relay measures raw
// gopls through it beside agentlsp, as the floor of an MCP bridge's
// overhead.
//
//	lsprelay gopls
//
// It exits with the program's status once the program has exited and
// its output was relayed; stderr is the program's. On Linux the program
// is killed when lsprelay dies.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: lsprelay PROGRAM [ARGS...]")
		os.Exit(2)
	}
	os.Exit(relay(os.Args[1], os.Args[2:]))
}

// relay runs the program and copies stdin to it and its stdout back until
// it exits; the status is the program's (1 if it could not start).
func relay(path string, args []string) int {
	cmd := exec.Command(path, args...)
	cmd.Stderr = os.Stderr
	setDeathSignal(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lsprelay:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lsprelay:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "lsprelay:", err)
		return 1
	}
	// Ends when stdin ends or the program stops reading; the process
	// exits without joining it (a read of stdin cannot be interrupted).
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		in.Close()
	}()
	_, _ = io.Copy(os.Stdout, out) // until the program closes its stdout
	var exit *exec.ExitError
	switch err := cmd.Wait(); {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		return 1
	}
}
