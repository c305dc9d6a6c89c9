package fakelsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Main runs the fake language server with the given command-line flags
// (without the program name) and returns the process exit code. It serves
// stdin and stdout, or one connection with --listen, and blocks until the
// exit notification (code 0 or --exit-code) or the end of input (code 0
// after shutdown, 1 otherwise). --crash-after and --exit-on end the process
// with os.Exit instead of returning. Bad flags return 2. Main is safe to
// call concurrently with distinct streams.
func Main(args []string, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, env{exit: os.Exit})
}

// env holds what differs between a real process and an in-process test.
type env struct {
	// exit ends the process for --crash-after and --exit-on. If it returns
	// (a test hook), serving stops and returns the code.
	exit func(code int)
	// halt ends the block of --stop-reading-after; nil blocks forever.
	halt <-chan struct{}
}

// run is Main with its process effects in e.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	log := &logger{w: stderr}
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		log.printf("%v", err)
		return 2
	}
	log.printf("fakelsp: started pid=%d", os.Getpid())
	for _, line := range cfg.stderrLines {
		log.printf("%s", line)
	}
	if cfg.tempFile != "" {
		path := filepath.Join(os.TempDir(), cfg.tempFile)
		if err := os.WriteFile(path, []byte("left by fakelsp\n"), 0o600); err != nil {
			log.printf("fakelsp: temp file: %v", err)
		} else {
			log.printf("fakelsp: temp file %s", path)
		}
	}
	if cfg.grandchild {
		if err := startGrandchild(cfg.grandchildPID); err != nil {
			log.printf("fakelsp: grandchild: %v", err)
		}
	}
	if cfg.listen != "" {
		return serveListener(cfg, log, e)
	}
	return serve(cfg, stdin, stdout, log, e)
}

// serve handles one stream until exit or end of input.
func serve(cfg *config, r io.Reader, w io.Writer, log *logger, e env) int {
	rec, err := openRecorder(cfg.record)
	if err != nil {
		log.printf("fakelsp: %v", err)
		return 1
	}
	defer rec.close()
	s := newServer(cfg, w, log, rec, e)
	go s.sched.run() // lives until s.sched.close below, which joins it
	code := s.loop(bufio.NewReader(r))
	s.sched.close()
	return code
}

// server is the state of one connection. Fields below "loop-owned" are
// used only by the goroutine running loop; scheduled work touches only out,
// log and the pending set.
type server struct {
	cfg   *config
	out   *frameWriter
	log   *logger
	rec   *recorder
	env   env
	sched *scheduler

	mu         sync.Mutex
	pending    map[string]bool // ids of requests not yet answered, guarded by mu
	maxPending int             // the most requests ever pending at once, guarded by mu

	// loop-owned
	received  int
	utf8      bool
	shutdown  bool
	docs      map[string]*document
	perMethod map[string]int              // requests received per method
	calls     map[string]func(m *message) // the fake's requests awaiting answers
	nextID    int
	diagnoses int // --diagnosing: the progress tokens made
	// --check-on-save: the checks begun, and the files the last one
	// found the marker in.
	checks  int
	checked map[string]bool
	// loadFailing: --load-progress's failure work is in progress.
	loadFailing bool
	// working: the --progress work has not ended (set at initialized,
	// cleared by the scheduler at its end).
	working atomic.Bool
	// notReady: --ready-after has not passed since initialized.
	notReady atomic.Bool
}

func newServer(cfg *config, w io.Writer, log *logger, rec *recorder, e env) *server {
	return &server{
		cfg: cfg, out: &frameWriter{w: w}, log: log, rec: rec, env: e,
		sched:     newScheduler(),
		pending:   map[string]bool{},
		docs:      map[string]*document{},
		perMethod: map[string]int{},
		calls:     map[string]func(*message){},
	}
}

// loop reads and handles messages in order until one ends the session.
func (s *server) loop(r *bufio.Reader) int {
	for {
		body, err := readFrame(r)
		if err != nil {
			return s.inputEnded(err)
		}
		if code, done := s.receive(body); done {
			return code
		}
		if s.cfg.stopAfter > 0 && s.received >= s.cfg.stopAfter {
			return s.stopReading()
		}
	}
}

// inputEnded reports why reading stopped and picks the exit code.
func (s *server) inputEnded(err error) int {
	if !errors.Is(err, io.EOF) {
		s.log.printf("fakelsp: read: %v", err)
		return 1
	}
	s.log.printf("fakelsp: input closed")
	if s.shutdown {
		return 0
	}
	return 1
}

// receive records and handles one frame body. done reports the end of the
// session with code.
func (s *server) receive(body []byte) (code int, done bool) {
	s.received++
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		s.rec.recordInvalid(body)
		s.log.printf("fakelsp: error: message is not JSON: %v", err)
		s.write(responseBody(json.RawMessage("null"), nil, &rpcError{Code: codeParseError, Message: err.Error()}))
		return s.checkCrash(&m)
	}
	s.rec.record(&m)
	if code, done := s.checkCrash(&m); done {
		return code, done
	}
	switch m.kind() {
	case "request":
		s.handleRequest(&m)
	case "notification":
		return s.handleNotification(&m)
	default:
		s.handleResponse(&m)
	}
	return 0, false
}

// handleResponse passes a client's answer to whoever asked.
func (s *server) handleResponse(m *message) {
	key := idKey(m.ID)
	then, ok := s.calls[key]
	if !ok {
		return
	}
	delete(s.calls, key)
	if then != nil {
		then(m)
	}
}

// write writes one frame, logging a failure: the client may be gone.
func (s *server) write(body []byte) {
	if err := s.out.writeFrame(body); err != nil {
		s.log.printf("fakelsp: write: %v", err)
	}
}

// notify sends a notification.
func (s *server) notify(method string, params any) {
	s.write(mustJSON(&message{JSONRPC: "2.0", Method: method, Params: mustJSON(params)}))
}

// call sends a request with the given id; then, if not nil, gets the
// answer. Params that encode as null are left out.
func (s *server) call(id json.RawMessage, method string, params any, then func(*message)) {
	s.calls[idKey(id)] = then
	raw := mustJSON(params)
	if string(raw) == "null" {
		raw = nil
	}
	s.write(mustJSON(&message{JSONRPC: "2.0", ID: id, Method: method, Params: raw}))
}

// internalID returns a fresh id for the fake's own requests, away from the
// ids of --server-request.
func (s *server) internalID() json.RawMessage {
	s.nextID++
	return mustJSON(1000 + s.nextID)
}

// addPending marks a request as awaiting an answer.
func (s *server) addPending(id json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[idKey(id)] = true
	s.maxPending = max(s.maxPending, len(s.pending))
}

// takePending removes a request from the pending set; only the caller that
// gets true may answer it.
func (s *server) takePending(id json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := idKey(id)
	if !s.pending[key] {
		return false
	}
	delete(s.pending, key)
	return true
}

// logger writes whole lines to stderr; it is safe for concurrent use.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, args ...any) {
	line := fmt.Appendf(nil, format+"\n", args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(line)
}
