package fakelsp

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

var errUsage = errors.New("fakelsp: bad flags")

// config is the parsed command line. Zero values are the defaults.
type config struct {
	syncKind        int // textDocumentSync.change: 0 none, 1 full, 2 incremental
	pull            bool
	interFile       bool
	pullRegister    bool
	saveRegister    bool
	positionEnc     string // "utf-16" or "utf-8": what the fake offers
	exitCode        int
	noPush          bool
	refreshOnSave   bool
	noVersion       bool
	phased          time.Duration
	pushDelay       time.Duration
	flood           int
	responses       map[string]json.RawMessage
	record          string
	crashAfter      int
	stopAfter       int
	exitOn          methodSet
	hangOn          methodSet
	garbageOn       methodSet
	invalidUTF8On   methodSet
	delay           durationMap
	contentModified countMap
	oversizeOn      countMap
	unknownResponse bool
	ignoreShutdown  bool
	stderrLines     stringList
	without         stringList
	grandchild      bool
	grandchildPID   string
	configFirst     bool
	serverRequests  requestList
	progress        time.Duration
	diagnosing      bool
	checkOnSave     time.Duration
	checkStaleLast  bool
	emptyInWork     bool
	modifiedInWork  methodSet
	readyAfter      time.Duration
	listen          string
	tempFile        string
	loadFile        string
	loadProgress    bool
	configFile      string
	configText      string // what --config-file held at start
}

// parseFlags parses args into a config. Usage and errors go to stderr.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{
		exitOn: methodSet{}, hangOn: methodSet{}, garbageOn: methodSet{},
		invalidUTF8On: methodSet{}, delay: durationMap{},
		contentModified: countMap{}, oversizeOn: countMap{}, modifiedInWork: methodSet{},
	}
	fs := flag.NewFlagSet("fakelsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	syncMode := fs.String("sync", "incremental", "textDocumentSync change kind: incremental, full or none")
	responses := fs.String("responses", "", "JSON `file` mapping a method to its raw result")
	defineFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	return c, c.finish(*syncMode, *responses)
}

// defineFlags declares every flag that writes straight into c.
func defineFlags(fs *flag.FlagSet, c *config) {
	fs.BoolVar(&c.pull, "pull", false, "offer pull diagnostics (diagnosticProvider)")
	fs.BoolVar(&c.interFile, "inter-file", false, "say pull diagnostics have inter-file dependencies")
	fs.BoolVar(&c.pullRegister, "pull-register", false, "offer pull diagnostics by client/registerCapability after initialized")
	fs.BoolVar(&c.saveRegister, "save-register", false, "ask for didSave by client/registerCapability after initialized, not in textDocumentSync, as rust-analyzer does")
	fs.StringVar(&c.positionEnc, "position-encoding", "utf-16", "position encoding to choose if the client offers it: utf-16 or utf-8")
	fs.IntVar(&c.exitCode, "exit-code", 0, "exit code on the exit notification")
	fs.BoolVar(&c.noPush, "no-push", false, "never publish diagnostics")
	fs.BoolVar(&c.refreshOnSave, "refresh-on-save", false, "on didSave, send workspace/diagnostic/refresh")
	fs.BoolVar(&c.noVersion, "no-version", false, "omit the version from published diagnostics")
	fs.DurationVar(&c.phased, "phased", 0, "publish SYNTAX diagnostics first, then all of them after this `duration`")
	fs.DurationVar(&c.pushDelay, "push-delay", 0, "delay every publication by this `duration`")
	fs.IntVar(&c.flood, "flood", 0, "on didOpen publish `N` error diagnostics instead")
	fs.StringVar(&c.record, "record", "", "append every received message as a JSON line to this `file`")
	fs.IntVar(&c.crashAfter, "crash-after", 0, "exit with code 2 after receiving `N` messages")
	fs.IntVar(&c.stopAfter, "stop-reading-after", 0, "stop reading input after `N` messages, and block")
	fs.Var(c.exitOn, "exit-on", "exit with code 3 on receiving `METHOD` (repeatable)")
	fs.Var(c.hangOn, "hang-on", "never answer `METHOD` (repeatable)")
	fs.Var(&c.without, "without", "leave `CAPABILITY` (e.g. implementationProvider) out of the capabilities (repeatable)")
	fs.Var(c.garbageOn, "garbage-on", "answer `METHOD` with a frame that is not JSON (repeatable)")
	fs.Var(c.invalidUTF8On, "invalid-utf8-on", "answer `METHOD` with invalid UTF-8 (repeatable)")
	fs.Var(c.delay, "delay", "answer METHOD after DUR: `METHOD=DUR` (repeatable)")
	fs.Var(c.contentModified, "content-modified", "answer the first N METHOD requests with -32801: `METHOD=N` (repeatable)")
	fs.Var(c.oversizeOn, "oversize-on", "answer METHOD with a body of BYTES bytes: `METHOD=BYTES` (repeatable)")
	fs.BoolVar(&c.unknownResponse, "unknown-response", false, "after answering initialize, answer id 987654 too")
	fs.BoolVar(&c.ignoreShutdown, "ignore-shutdown", false, "never answer shutdown; ignore exit")
	fs.Var(&c.stderrLines, "stderr", "write `LINE` to stderr at start (repeatable)")
	fs.BoolVar(&c.grandchild, "grandchild", false, "start \"sleep 600\" as a child in the same process group and do not wait for it")
	fs.StringVar(&c.grandchildPID, "grandchild-pidfile", "", "write the grandchild's pid to this `file`")
	fs.BoolVar(&c.configFirst, "config-first", false, "on initialize, ask workspace/configuration before answering")
	fs.Var(&c.serverRequests, "server-request", "after initialized send request METHOD with params JSON (null or empty: none): `METHOD=JSON` (repeatable)")
	fs.DurationVar(&c.progress, "progress", 0, "after initialized report work done progress lasting this `duration`")
	fs.DurationVar(&c.readyAfter, "ready-after", 0, "for this `duration` after initialized answer references, implementations, incoming calls and workspace symbols with nothing found, then log \""+readyLine+"\" (window/logMessage), as pyright answers before it has found its source files")
	fs.Var(c.modifiedInWork, "modified-while-progress", "answer `METHOD` with -32801 (content modified) from initialized until the --progress work ends, as rust-analyzer does while it loads its workspace (repeatable)")
	fs.BoolVar(&c.emptyInWork, "empty-while-progress", false, "answer pulls with no diagnostics from initialized until the --progress work ends, as rust-analyzer does while it loads its workspace")
	fs.BoolVar(&c.diagnosing, "diagnosing", false, "wrap each publication in a \"diagnosing changed files\" work done progress, as gopls does: begun when the change is taken, ended once the diagnostics (after --push-delay) are out")
	fs.DurationVar(&c.checkOnSave, "check-on-save", 0, "after initialized and on each didSave, run a check of the files on disk lasting this `duration`, as rust-analyzer runs cargo check: a \""+checkTitle+"\" work done progress whose end comes after a push for each file with a \""+checkMarker+"\" line (a marker no pull and no other push reports), then workspace/diagnostic/refresh")
	fs.BoolVar(&c.checkStaleLast, "check-stale-last", false, "with --check-on-save, push a file with several findings three times, its first finding, all, then its first alone again, as rust-analyzer once did under load")
	fs.StringVar(&c.tempFile, "temp-file", "", "at start write `NAME` in the temporary directory (TMPDIR) and log \"fakelsp: temp file PATH\", as servers leave files there")
	fs.StringVar(&c.loadFile, "load-file", "", "load the project file `NAME` in the working directory after initialized and when a didChangeWatchedFiles names it, logging \"Loading NAME\"; one missing or holding \"broken\" fails to load: an error window/showMessage \"Failed to load workspace: ...\", as rust-analyzer says of a broken Cargo.toml")
	fs.BoolVar(&c.loadProgress, "load-progress", false, "with --load-file, say a failure as a work done progress \""+loadErrorTitle+"\" held until a load works, as gopls does")
	fs.StringVar(&c.configFile, "config-file", "", "at start read `FILE` (relative to the working directory), once, as pyright reads its pyrightconfig.json: while it holds text, every document's diagnostics (pushed or pulled) begin with the error \"config: TEXT\" on line 0 (code CFG, source fake-config); a later change of the file is never read")
	fs.StringVar(&c.listen, "listen", "", "serve one connection accepted on `tcp:HOST:PORT or unix:PATH` instead of stdio")
}

// finish checks values that flag parsing cannot and loads the responses file.
func (c *config) finish(syncMode, responses string) error {
	kinds := map[string]int{"none": 0, "full": 1, "incremental": 2}
	kind, ok := kinds[syncMode]
	if !ok {
		return fmt.Errorf("%w: --sync %q: want incremental, full or none", errUsage, syncMode)
	}
	c.syncKind = kind
	if c.positionEnc != "utf-16" && c.positionEnc != "utf-8" {
		return fmt.Errorf("%w: --position-encoding %q: want utf-16 or utf-8", errUsage, c.positionEnc)
	}
	if c.listen != "" && !strings.HasPrefix(c.listen, "tcp:") && !strings.HasPrefix(c.listen, "unix:") {
		return fmt.Errorf("%w: --listen %q: want tcp:HOST:PORT or unix:PATH", errUsage, c.listen)
	}
	if c.configFile != "" {
		text, err := os.ReadFile(c.configFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: --config-file: %v", errUsage, err)
		}
		c.configText = strings.TrimSpace(string(text))
	}
	if responses == "" {
		return nil
	}
	data, err := os.ReadFile(responses)
	if err != nil {
		return fmt.Errorf("%w: --responses: %v", errUsage, err)
	}
	if err := json.Unmarshal(data, &c.responses); err != nil {
		return fmt.Errorf("%w: --responses %s: %v", errUsage, responses, err)
	}
	return nil
}

// methodSet is a repeatable flag naming methods.
type methodSet map[string]bool

func (s methodSet) String() string { return strings.Join(sortedKeys(s), ",") }

func (s methodSet) Set(v string) error {
	if v == "" {
		return errors.New("empty method")
	}
	s[v] = true
	return nil
}

// durationMap is a repeatable METHOD=DUR flag.
type durationMap map[string]time.Duration

func (m durationMap) String() string { return strings.Join(sortedKeys(m), ",") }

func (m durationMap) Set(v string) error {
	method, val, err := splitAssign(v)
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(val)
	if err != nil {
		return err
	}
	m[method] = d
	return nil
}

// countMap is a repeatable METHOD=N flag.
type countMap map[string]int

func (m countMap) String() string { return strings.Join(sortedKeys(m), ",") }

func (m countMap) Set(v string) error {
	method, val, err := splitAssign(v)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(val)
	if err != nil || n < 0 {
		return fmt.Errorf("bad count %q", val)
	}
	m[method] = n
	return nil
}

// stringList is a repeatable flag keeping every value in order.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, "\n") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// serverRequest is one --server-request.
type serverRequest struct {
	method string
	params json.RawMessage
}

// requestList is the repeatable METHOD=JSON flag.
type requestList []serverRequest

func (l *requestList) String() string { return fmt.Sprint(len(*l), " requests") }

func (l *requestList) Set(v string) error {
	method, params, err := splitAssign(v)
	if err != nil {
		return err
	}
	if params == "" {
		params = "null"
	}
	if !json.Valid([]byte(params)) {
		return fmt.Errorf("params of %s are not JSON: %q", method, params)
	}
	*l = append(*l, serverRequest{method: method, params: json.RawMessage(params)})
	return nil
}

// splitAssign splits "METHOD=VALUE" at the first '='.
func splitAssign(v string) (string, string, error) {
	method, val, ok := strings.Cut(v, "=")
	if !ok || method == "" {
		return "", "", fmt.Errorf("want METHOD=VALUE, got %q", v)
	}
	return method, val, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	return slices.Sorted(maps.Keys(m))
}
