package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is one `agentlsp mcp` child process, spoken to over its stdio by
// the SDK's client (CommandTransport), shared by the client's workers (the
// SDK session is safe for concurrent calls).
type client struct {
	id      int
	o       *options
	ws      string          // the workspace
	runCtx  context.Context // cancelled on Ctrl-C or the run's deadline
	cmd     *exec.Cmd
	stderr  *os.File
	session *sdk.ClientSession
	pid     int
}

// toolError is a tool's answer with isError set: its text.
type toolError struct{ text string }

func (e *toolError) Error() string { return "tool error: " + e.text }

// startClient starts `agentlsp mcp` in its own process group, marked with
// the run's marker, and connects to it. On error nothing is left running.
func startClient(ctx context.Context, id int, o *options, b *loadTest) (*client, error) {
	cmd := exec.Command(b.bin, "mcp", "--workspace", b.ws, "--config", b.config, "--stats", o.sampleEvery.String())
	cmd.Dir = b.ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The servers' temporary files (a killed gopls leaves its
	// gopls-tempmod directories) stay inside the run's directory.
	cmd.Env = append(os.Environ(), b.marker, "TMPDIR="+b.childTmp)
	f, err := os.CreateTemp(b.tmp, fmt.Sprintf("agentlsp-%d-*.stderr", id))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = f
	cctx, cancel := context.WithTimeout(ctx, o.callTimeout)
	defer cancel()
	sc := sdk.NewClient(&sdk.Implementation{Name: "mcpload", Version: "1"}, nil)
	session, err := sc.Connect(cctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: o.terminate}, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
		f.Close()
		return nil, fmt.Errorf("client %d: agentlsp mcp: %w (stderr: %s)", id, err, tail(f.Name(), 500))
	}
	c := &client{id: id, o: o, ws: b.ws, runCtx: ctx, cmd: cmd, stderr: f, session: session, pid: cmd.Process.Pid}
	b.procs.add(procInfo{pid: c.pid, pgid: c.pid, start: startOf(c.pid)}, "agentlsp")
	return c, nil
}

func startOf(pid int) string {
	p, _ := readProc(pid)
	return p.start
}

// call calls a tool, bounded by the call timeout, and returns its
// structured content; a tool error is a *toolError.
func (c *client) call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.callTimeout)
	defer cancel()
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		var msg []string
		for _, ct := range res.Content {
			if t, ok := ct.(*sdk.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return nil, &toolError{strings.Join(msg, " ")}
	}
	return json.Marshal(res.StructuredContent)
}

// failed classifies a call that did not return content: a tool error
// (expected when it names the injected fault), a run interrupted, or no
// answer at all.
func (c *client) failed(r result, err error) result {
	var te *toolError
	switch {
	case errors.As(err, &te):
		r.errKind, r.answer = errorKind(te.text), te.text
		if c.o.killEvery > 0 && faultKinds[r.errKind] {
			return r.with(outcomeExpectedErr, "")
		}
		return r.with(outcomeUnexpectedErr, te.text)
	case c.runCtx.Err() != nil:
		return r.with(outcomeCancelled, err.Error())
	}
	return r.with(outcomeUnanswered, err.Error())
}

// unsupported checks a call whose right answer is a tool error holding
// every string of want.
func (c *client) unsupported(r result, err error, raw json.RawMessage, want []string) result {
	var te *toolError
	switch {
	case err == nil:
		r.answer = string(raw)
		return r.with(outcomeWrong, "an answer where the server offers no such operation")
	case !errors.As(err, &te):
		return c.failed(r, err)
	}
	for _, w := range want {
		if !strings.Contains(te.text, w) {
			return c.failed(r, err)
		}
	}
	r.errKind, r.answer = "unsupported", te.text
	return r.with(outcomeOK, "")
}

// faultKinds are the tool errors a killed server explains.
var faultKinds = map[string]bool{"crashed": true, "broken": true}

// errorKind names a tool error by the runtime error its text quotes.
func errorKind(text string) string {
	kinds := []struct{ kind, text string }{
		{"crashed", "server crashed"},
		{"broken", "server broken"},
		{"startup_timeout", "startup timed out"},
		{"request_timeout", "request timed out"},
		{"call_timeout", "did not answer in time"},
		{"overloaded", "overloaded"},
		{"shutdown", "shutting down"},
		{"cancelled", "request cancelled"},
		{"cancelled", "cancelled by the client"},
		{"server_error", "server error"},
		{"no_result", "no server answered"},
	}
	for _, k := range kinds {
		if strings.Contains(text, k.text) {
			return k.kind
		}
	}
	return "other"
}

// close ends the session: the SDK closes agentlsp's stdin and waits for
// it to exit (then SIGTERM, then SIGKILL, o.terminate apart). It returns
// how long that took and the exit error, if any.
func (c *client) close() (time.Duration, error) {
	start := time.Now()
	err := c.session.Close()
	d := time.Since(start)
	c.stderr.Close()
	return d, err
}

// tail returns the last n bytes of the file at path, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
