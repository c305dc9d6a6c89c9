//go:build unix

package daemon

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// ReadyEnv names the file descriptor on which a detached daemon says that
// it serves (or why it cannot).
const ReadyEnv = "AGENTLSP_READY_FD"

// logTail is how much of a daemon's log an error quotes.
const logTail = 2048

// Detach runs argv as a detached daemon: its own session (setsid), so its
// own process group and no controlling terminal, stdin from /dev/null,
// stdout and stderr appended to logPath (mode 0600), and this process's
// environment (the daemon's language servers find what the client's PATH
// finds). It waits until the daemon reports on its ready pipe that it
// serves (see Ready), fails, or exits, bounded by ctx. The daemon outlives
// the caller; a caller that lives on should be a short-lived intermediate
// process (agentlsp serve --detach), so that no zombie is left when the
// daemon exits.
func Detach(ctx context.Context, argv []string, logPath string) error {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStartFailed, err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStartFailed, err)
	}
	defer r.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append(os.Environ(), ReadyEnv+"=3")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrStartFailed, err)
	}
	defer cmd.Process.Release()
	line := make(chan string, 1)
	// Lives until the daemon writes its line or closes the pipe (it exits,
	// or the read end is closed below when ctx ends).
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var got string
	select {
	case got = <-line:
	case <-ctx.Done():
		r.Close()
		<-line
		return ctx.Err()
	}
	switch {
	case got == "ready":
		return nil
	case strings.HasPrefix(got, "error: "):
		return fmt.Errorf("%w: %s", ErrStartFailed, strings.TrimPrefix(got, "error: "))
	}
	return fmt.Errorf("%w: it exited before serving; the end of its log (%s):\n%s", ErrStartFailed, logPath, tail(logPath))
}

// tail returns the end of a log file.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > logTail {
		b = b[len(b)-logTail:]
	}
	return strings.TrimSpace(string(b))
}

// Ready returns the function a daemon started by Detach calls once it
// serves (nil) or cannot (the error), or nil when it was not started so.
// It takes the ready descriptor out of the environment and marks it
// close-on-exec, so the language servers do not inherit it.
func Ready() func(error) {
	v := os.Getenv(ReadyEnv)
	if v == "" {
		return nil
	}
	os.Unsetenv(ReadyEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "ready")
	return func(err error) {
		msg := "ready\n"
		if err != nil {
			msg = "error: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
		}
		f.WriteString(msg)
		f.Close()
	}
}
