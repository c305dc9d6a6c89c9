package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Defaults for zero-valued Options fields.
const (
	DefaultMaxMessageSize = 64 << 20
	DefaultWriteTimeout   = 10 * time.Second
	DefaultStderrLines    = 40
	DefaultMaxQueued      = 4096
	DefaultDialTimeout    = 10 * time.Second
)

// Options configure a connection. Zero values are the documented defaults.
type Options struct {
	// Command and Args start the server; never run through a shell. Empty
	// Command with a socket transport connects to a server already running.
	Command string
	Args    []string
	// Env holds KEY=VALUE entries added to the runtime's environment.
	Env []string
	// Dir is the process's working directory (the project root).
	Dir string
	// Network is "" (stdio), "tcp" or "unix"; Address is where to dial.
	Network string
	Address string
	// DialTimeout bounds connecting to a socket server (default 10s).
	DialTimeout time.Duration
	// Settings answer workspace/configuration by dotted section.
	Settings map[string]any
	// WorkspaceFolders answer workspace/workspaceFolders.
	WorkspaceFolders []protocol.WorkspaceFolder
	// MaxMessageSize bounds one frame from the server (default 64 MiB).
	MaxMessageSize int64
	// WriteTimeout bounds one write to the server (default 10s).
	WriteTimeout time.Duration
	// StderrLines is how many stderr lines are kept (default 40).
	StderrLines int
	// MaxQueued bounds messages waiting to be written (default 4096).
	MaxQueued int
	// OnEvent receives every notification from the server and the
	// server requests that change client state (client/registerCapability,
	// client/unregisterCapability, window/workDoneProgress/create,
	// workspace/*/refresh), after they were answered. It is called from the
	// read loop: it must not block. params is owned by the callee.
	OnEvent func(method string, params json.RawMessage)
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
}

// Conn is a live connection to one language server. All methods are safe
// for concurrent use. Go, Notify and Kill never block; Call and Shutdown
// block until their answer, their context, or the end of the connection.
type Conn struct {
	opts   Options
	proc   *process // nil for a socket server we did not start
	stream *frameStream
	out    *outbox
	calls  calls // pending calls, completed by the reader
	log    *slog.Logger

	life       context.Context // cancelled when the connection ends
	cancel     context.CancelFunc
	readerDone chan struct{} // closed when the reader returns
	readErr    error         // why the reader stopped; valid after readerDone
	done       chan struct{} // closed when everything has ended

	graceful atomic.Bool // Shutdown was asked: an exit is not a crash
	endOnce  sync.Once
	errMu    sync.Mutex
	err      error
}

// Start spawns the server (or dials it) and starts the connection. It
// blocks while the process starts or the socket is dialled. A server that
// cannot be started gives a *messages.SpawnError.
func Start(ctx context.Context, opts Options) (*Conn, error) {
	opts = withDefaults(opts)
	c := &Conn{opts: opts, done: make(chan struct{}), readerDone: make(chan struct{}), log: opts.Logger}
	c.calls.pending = make(map[jsonrpc2.ID]*pendingCall)
	rwc, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	c.stream = newFrameStream(rwc, opts.MaxMessageSize, opts.WriteTimeout)
	if p, ok := rwc.(*pipeRWC); ok {
		c.stream.out = p.w
		// A server that prints text on stdout and exits (a usage error)
		// says why there, not on stderr: keep it with the stderr tail.
		tail := c.proc.stderr
		c.stream.stray = func(line string) { tail.add("stdout: " + line) }
	} else if nc, ok := rwc.(net.Conn); ok {
		c.stream.out = nc
	}
	c.stream.now = newNowWriter(c.stream.out)
	c.life, c.cancel = context.WithCancel(context.Background())
	c.out = newOutbox(opts.MaxQueued)
	// The reader lives until the stream fails or is closed (teardown).
	go c.read()
	// The writer lives until the connection ends (life is cancelled).
	go c.out.run(c.life, c.Err)
	// The monitor lives until the read loop ends or the process exits; it
	// tears the connection down and closes done.
	go c.monitor()
	return c, nil
}

func withDefaults(o Options) Options {
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.StderrLines <= 0 {
		o.StderrLines = DefaultStderrLines
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.OnEvent == nil {
		o.OnEvent = func(string, json.RawMessage) {}
	}
	return o
}

// open spawns the process and returns the byte stream to speak over.
func (c *Conn) open(ctx context.Context) (io.ReadWriteCloser, error) {
	o := c.opts
	if o.Command != "" {
		p, err := spawn(o.Command, o.Args, o.Env, o.Dir, o.StderrLines)
		if err != nil {
			return nil, err
		}
		c.proc = p
	}
	if o.Network == "" {
		if c.proc == nil {
			return nil, errors.New("transport: stdio transport needs a command")
		}
		return &pipeRWC{r: c.proc.stdout, w: c.proc.stdin}, nil
	}
	nc, err := c.dial(ctx)
	if err != nil {
		if c.proc != nil {
			c.proc.killGroup()
			c.proc.stdin.Close()
			c.proc.stdout.Close()
			c.proc.wait()
		}
		return nil, err
	}
	if c.proc != nil {
		// The protocol runs over the socket; stdio is not used for it.
		c.proc.stdin.Close()
		// Drain stdout so a chatty server never blocks; ends with the group.
		c.proc.readerWG.Add(1)
		go func() {
			defer c.proc.readerWG.Done()
			defer c.proc.stdout.Close()
			c.proc.stderr.readFrom(c.proc.stdout)
		}()
	}
	return nc, nil
}

// dial connects to a socket server, retrying while it starts listening.
func (c *Conn) dial(ctx context.Context) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	var d net.Dialer
	delay := 10 * time.Millisecond
	for {
		nc, err := d.DialContext(ctx, c.opts.Network, c.opts.Address)
		if err == nil {
			return nc, nil
		}
		if c.proc != nil {
			select {
			case <-c.proc.exited:
				return nil, fmt.Errorf("%w before listening on %s %s: %v", ErrExited, c.opts.Network, c.opts.Address, c.proc.exitErr)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("transport: dial %s %s: %w", c.opts.Network, c.opts.Address, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// exitDrain bounds the wait, once the process was told to end, for the
// reader to reach the end of what it wrote.
const exitDrain = 250 * time.Millisecond

// monitor waits for the end of the connection and tears it down.
func (c *Conn) monitor() {
	var exited <-chan struct{}
	if c.proc != nil {
		exited = c.proc.exited
	}
	select {
	case <-c.readerDone:
		cause := c.readErr
		if exited != nil && !errors.Is(cause, ErrProtocol) && !errors.Is(cause, ErrMessageTooLarge) {
			// The server closed its output: it is most likely exiting. Give
			// it a moment so the cause reported is its exit status.
			select {
			case <-exited:
			case <-time.After(time.Second):
			}
		}
		c.end(cause)
	case <-exited:
		c.end(nil)
	case <-c.life.Done():
	}
	c.teardown()
}

// end records why the connection ended (first cause wins) and starts the
// teardown by cancelling life.
func (c *Conn) end(cause error) {
	c.endOnce.Do(func() {
		c.errMu.Lock()
		c.err = c.describe(cause)
		c.errMu.Unlock()
		c.cancel()
	})
}

// describe turns an end cause into the error Err reports.
func (c *Conn) describe(cause error) error {
	if cause != nil && (errors.Is(cause, ErrProtocol) || errors.Is(cause, ErrMessageTooLarge) || errors.Is(cause, ErrWriteFailed)) {
		return cause
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
			if c.graceful.Load() {
				return nil
			}
			return fmt.Errorf("%w: %v", ErrExited, exitText(c.proc.exitErr))
		default:
		}
	}
	if c.graceful.Load() {
		return nil
	}
	if cause == nil || errors.Is(cause, io.EOF) || errors.Is(cause, io.ErrUnexpectedEOF) || errors.Is(cause, os.ErrClosed) || errors.Is(cause, net.ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("%w: %v", ErrClosed, cause)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// teardown kills the process group, closes the stream and joins every
// goroutine of the connection, then closes done.
func (c *Conn) teardown() {
	c.end(ErrClosed)
	if c.proc != nil {
		c.proc.killGroup()
		// Let the reader take what the process wrote before it ended (a
		// usage error on stdout, kept with the stderr tail) before the
		// stream closes: the pipe ends once every holder of its end closed
		// it, and a grandchild may hold it, hence the bound.
		select {
		case <-c.readerDone:
		case <-time.After(exitDrain):
		}
	}
	c.stream.Close()
	<-c.readerDone
	c.out.wait()
	if c.proc != nil && errors.Is(c.Err(), syscall.EPIPE) {
		// A write found the server's end of the pipe closed: it exited,
		// or is exiting (and is killed above). Its calls are answered
		// with the exit, not with the write that noticed it.
		<-c.proc.exited
		c.asExit()
	}
	cause := c.endErr(ErrClosed)
	for _, p := range c.calls.closeAll() {
		p.finish(nil, cause)
	}
	if c.proc != nil {
		c.proc.wait()
		c.asExit() // the exit status may have arrived after the read loop ended
	}
	close(c.done)
}

// asExit reports the connection's end as the process's exit when it ended
// without a Shutdown because the pipe closed (ErrClosed) or a write found
// it closed (EPIPE): a crash shows as an exit, with its status. Once the
// process exited.
func (c *Conn) asExit() {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if !c.graceful.Load() && (errors.Is(c.err, ErrClosed) || errors.Is(c.err, syscall.EPIPE)) {
		c.err = fmt.Errorf("%w: %v", ErrExited, exitText(c.proc.exitErr))
	}
}

// read is the reader goroutine: it decodes every frame from the server and
// completes calls, answers server requests (queued on the outbox) and
// hands notifications to OnEvent, until the stream fails or is closed.
func (c *Conn) read() {
	defer close(c.readerDone)
	for {
		m, _, err := c.stream.readIncoming()
		if err != nil {
			c.readErr = err
			return
		}
		switch {
		case m.isCall():
			c.serve(m)
		case m.isNotification():
			c.event(m.method, m.params)
		default:
			c.complete(m)
		}
	}
}

// Done is closed when the connection has ended and every goroutine and
// process it owned is gone.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended: nil after a clean Shutdown, else an
// error wrapping ErrExited, ErrProtocol, ErrMessageTooLarge, ErrWriteFailed
// or ErrClosed. Valid once Done is closed.
func (c *Conn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// PID returns the server's process id, or 0 when we did not spawn it.
func (c *Conn) PID() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.pid()
}

// StderrTail returns the last lines the server wrote to stderr, and
// those it wrote on stdout that were not LSP (marked "stdout: "), in
// order of reading.
func (c *Conn) StderrTail() []string {
	if c.proc == nil {
		return nil
	}
	return c.proc.stderr.tail()
}

// Kill ends the connection at once: the process group gets SIGKILL. It
// does not block; wait on Done.
func (c *Conn) Kill() {
	c.end(ErrClosed)
}

// Shutdown ends the connection gracefully: the LSP shutdown request, the
// exit notification, a wait for the process bounded by ctx, then SIGKILL of
// the process group. It blocks until everything has ended.
func (c *Conn) Shutdown(ctx context.Context) error {
	c.graceful.Store(true)
	if _, err := c.Call(ctx, "shutdown", nil); err == nil {
		if err := c.Notify("exit", nil); err == nil && c.proc != nil {
			select {
			case <-c.proc.exited:
			case <-ctx.Done():
			case <-c.done:
			}
		}
	}
	c.end(nil)
	<-c.done
	return c.Err()
}
