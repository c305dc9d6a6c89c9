// Package config describes language servers: the Server definition the
// actors run, the built-in definitions (Builtins), the effective Registry
// after user configuration is merged over them, each server's project-root
// strategy (FindRoot), and loading and strict validation of configuration
// files: agentlsp's own JSON schema (Load, Parse) and imports of OpenCode and
// Claude Code plugin LSP configurations (ParseOpenCode, ParseClaudeLSP,
// LoadAny). Every error about a file's content is an *Error that names the
// file and the field, and matches ErrInvalid.
//
// It has no goroutines. Nothing blocks but on the file system, which only
// Load, LoadAny and FindRoot read (ParseClaudeLSP asks for the working
// directory to make a plugin's directory absolute). A Registry is immutable
// and safe for concurrent use; every other function is safe for concurrent
// use on distinct values.
package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults for a Server's zero-valued fields (DESIGN.md section 4).
const (
	DefaultStartupTimeout  = 45 * time.Second
	DefaultRequestTimeout  = 30 * time.Second
	DefaultShutdownTimeout = 5 * time.Second
	DefaultIdleTimeout     = 10 * time.Minute
	DefaultMaxInFlight     = 64
	DefaultMaxMessageSize  = 64 << 20
	DefaultDiagnosticsWait = 3 * time.Second
	DefaultMaxRestarts     = 5
	// MaxOpenTargets bounds OpenTargets, OpenImporters and OpenChanged.
	MaxOpenTargets = 256
)

// The default LoadError and LoadStart: what rust-analyzer says ("Failed to
// discover workspace", "Failed to load workspaces", after its "Fetching"
// progress) and gopls's progress while its workspace does not load ("Error
// loading workspace"; its logs, which begin with a timestamp, are not
// matched); "Loading ..." begins pyright's load of its configuration.
const (
	DefaultLoadError = `(?i)^(failed to (load|discover)|errors? loading|(could|can)not load|unable to load) (the )?(workspaces?|projects?)\b`
	DefaultLoadStart = `^(Fetching|Loading)\b`
)

// Transport kinds.
const (
	TransportStdio = "stdio"
	TransportTCP   = "tcp"
	TransportUnix  = "unix"
)

// Server is one language-server definition. Zero values mean the documented
// defaults; use the accessor methods to read effective values.
type Server struct {
	// ID names the server ("gopls"); unique in a registry.
	ID string `json:"-"`
	// Command is the executable, looked up in PATH when it has no slash.
	// It is never run through a shell.
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Extensions maps a file extension (".go", lower case) to its LSP languageId.
	Extensions map[string]string `json:"extensions,omitempty"`
	// RootMarkers are file names whose nearest directory is the project root.
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// ExcludeMarkers: a directory holding one of these is not served.
	ExcludeMarkers []string `json:"excludeMarkers,omitempty"`
	// RootMarkerPriority makes the first RootMarker win over nearer markers
	// of the other kinds: gopls's go.work anywhere up to the workspace beats
	// a nearer go.mod. See FindRoot.
	RootMarkerPriority bool `json:"rootMarkerPriority,omitempty"`
	// Root, when set, is the project root of every file the server serves,
	// relative to the workspace; it replaces the marker search.
	Root string `json:"root,omitempty"`
	// Filenames maps a file's base name ("Dockerfile") to its LSP
	// languageId, for files without a telling extension. Matched without
	// regard to case, before Extensions.
	Filenames map[string]string `json:"filenames,omitempty"`
	// Env is added to (and overrides) the runtime's environment.
	Env map[string]string `json:"env,omitempty"`
	// InitializationOptions is sent as initialize's initializationOptions.
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
	// Settings answers workspace/configuration by dotted section and is
	// sent with workspace/didChangeConfiguration.
	Settings map[string]any `json:"settings,omitempty"`
	// Transport is stdio (default), tcp or unix; Address is where a tcp or
	// unix server listens (the command, if any, is started first).
	Transport string `json:"transport,omitempty"`
	Address   string `json:"address,omitempty"`

	StartupTimeout  Duration `json:"startupTimeout,omitempty"`
	RequestTimeout  Duration `json:"requestTimeout,omitempty"`
	ShutdownTimeout Duration `json:"shutdownTimeout,omitempty"`
	IdleTimeout     Duration `json:"idleTimeout,omitempty"`
	// DiagnosticsTimeout bounds the wait for diagnostics after an edit.
	DiagnosticsTimeout Duration `json:"diagnosticsTimeout,omitempty"`
	// DiagnosticsPull is how agentlsp gets diagnostics from a server that
	// only pushes them. "tsserver": asks tsserver, through
	// typescript-language-server's typescript.tsserverRequest command, for
	// a file's syntactic, semantic and suggestion diagnostics after each
	// change, and ignores the server's pushes, which say nothing when a
	// file stays clean. "" (default): the server's own pull diagnostics
	// (textDocument/diagnostic) when it offers them, else its pushes.
	DiagnosticsPull string `json:"diagnosticsPull,omitempty"`
	// OpenTargets is how many files named by definition answers stay open
	// on the server, the least recently named closed first; 0: none. A
	// server answers about a declaration faster when its file is open:
	// gopls's hover over a call into another package of golang.org/x/tools
	// took 7 ms with the declaring file closed and 0.6 ms with it open.
	OpenTargets int `json:"openTargets,omitempty"`
	// OpenImporters is, for a server that diagnoses open files only, how
	// many of a changed file's importers (package reach: the files that
	// import it, the nearest first) are opened on it before the change is
	// sent, so that an edit's or a diagnostics call's answer reports what
	// the change broke in them; they stay open, the least recently opened
	// closed first beyond this many; 0: none. pyright and tsserver report
	// nothing of a file nobody opened.
	OpenImporters int `json:"openImporters,omitempty"`
	// OpenChanged is, for a server that reads a file changed on disk in a
	// loader of its own, after the didChangeWatchedFiles that names it,
	// how many such files are opened on it, with their text, when they
	// change, so that the next answer describes them: rust-analyzer
	// answered a pull that followed a change of a file nobody had open
	// from the file as it was. They stay open (re-synced from disk at each
	// change), the least recently changed closed first beyond this many;
	// 0: none.
	OpenChanged int `json:"openChanged,omitempty"`
	// CheckOnSave is how the title begins of the work-done progress in
	// which the server runs a check of its own over the files on disk when
	// a document is saved, pushing what it finds: rust-analyzer's "cargo
	// check" (the built-in value is "cargo ", as clippy's is "cargo
	// clippy"), the only source of its borrow-checker errors. agentlsp then
	// sends didSave after syncing a change from disk, and holds a pull for
	// diagnostics answered before the check begun after that save has
	// ended (at most IndexWait, 20 s when unset), so that the answer holds
	// the check's findings. The server is expected to run such a check
	// after it starts, too. "": none.
	CheckOnSave string `json:"checkOnSave,omitempty"`
	// IndexWait: an answer the server gave while it reported work in
	// progress (loading its project), or a "content modified" error then,
	// is held, and the request (a navigation request, or a pull for
	// diagnostics) sent again once that work ends, as often as it is
	// answered during work, for at most this long; then the last answer
	// goes out, marked possibly incomplete. 0: answers go out at once.
	// typescript-language-server answered a definition during its project's
	// load with the import's own name instead of the declaration;
	// rust-analyzer answered pulls with nothing while it loaded its
	// workspace.
	IndexWait Duration `json:"indexWait,omitempty"`
	// ReadyLog is a regular expression (Go syntax) matching a line the
	// server logs (window/logMessage) once it knows its workspace's files:
	// after each start, the requests whose answers come from a search of
	// the workspace (references, implementations, incoming calls,
	// workspace symbols) wait for that line, at most 10 s. pyright answered
	// references before it had found its source files ("Found N source
	// files"), naming a function's declaration alone. "": none wait.
	ReadyLog string `json:"readyLog,omitempty"`
	// LoadError is a regular expression (Go syntax) matching what the
	// server says when it could not load the project: an error or warning
	// it shows or logs (window/showMessage, window/logMessage), or the
	// title of a work-done progress it holds while the failure lasts
	// (gopls's "Error loading workspace"). The files of that server and
	// root are then answered project_error with the server's message,
	// never fresh: rust-analyzer outside a Cargo project, or gopls with a
	// broken go.mod, type-checked nothing and published nothing, and the
	// answer said fresh and clean. A failure said by a progress lasts
	// until that progress ends; one said by a message, until the server
	// says something LoadStart matches, or restarts. "" (default):
	// DefaultLoadError.
	LoadError string `json:"loadError,omitempty"`
	// LoadStart is a regular expression (Go syntax) matching a message of
	// any type the server shows or logs, or the title of a work-done
	// progress it begins, when it begins a new load of the project: a
	// failure said by a message before is over (a new one comes if this
	// load fails too). "" (default): DefaultLoadStart.
	LoadStart string `json:"loadStart,omitempty"`
	// OpenForWorkspace: the server answers a workspace request (a symbol
	// search) only about projects it has loaded, and loads one when one of
	// its files is open; the router then opens one of its files under the
	// root first when none is open. typescript-language-server answers "No
	// Project" otherwise.
	OpenForWorkspace bool `json:"openForWorkspace,omitempty"`
	// ConfigFiles are the files that configure the server, as LSP glob
	// patterns of slash-separated paths relative to its project root
	// ("pyproject.toml", "**/tsconfig.json": '**' is any number of
	// directories). A directory deleted that may have held one (below
	// it by name, or any for a pattern that begins with "**/") counts as
	// a change of one. A change on disk to one of
	// them (written, created, deleted) restarts the server, a planned
	// restart that spends none of its crash budget: it re-opens every
	// document, and no diagnostics of the process before count as fresh
	// after it. pyright reloads pyproject.toml some 250 ms after the
	// change, and never takes a pyrightconfig.json created beside it:
	// answers described the old settings, fresh. nil: none.
	ConfigFiles []string `json:"configFiles,omitempty"`
	// RestartOnCrash: nil or true restarts a crashed server; false marks it
	// broken at its first crash.
	RestartOnCrash *bool `json:"restartOnCrash,omitempty"`
	// MaxRestarts is the crash budget within the budget window (default 5).
	MaxRestarts int `json:"maxRestarts,omitempty"`
	// MaxInFlight bounds the requests in flight (default 64).
	MaxInFlight int `json:"maxInFlight,omitempty"`
	// MaxMessageSize bounds one JSON-RPC frame from the server (default 64 MiB).
	MaxMessageSize int64 `json:"maxMessageSize,omitempty"`
	Disabled       bool  `json:"disabled,omitempty"`
	// InstallHint tells a user how to install the command.
	InstallHint string `json:"installHint,omitempty"`
}

// PullTSServer is the DiagnosticsPull that asks tsserver.
const PullTSServer = "tsserver"

// Effective is a Server's settings with every default resolved, as the
// actors read them. Make it once with Server.Effective.
type Effective struct {
	StartupTimeout     time.Duration // the initialize handshake
	RequestTimeout     time.Duration // one request
	ShutdownTimeout    time.Duration // shutdown and exit before SIGKILL
	IdleTimeout        time.Duration // no open document and no request, then stop
	DiagnosticsTimeout time.Duration // the wait for diagnostics after an edit
	MaxRestarts        int           // the crash budget within the budget window
	MaxInFlight        int           // requests in flight
	MaxMessageSize     int64         // one JSON-RPC frame from the server
	RestartOnCrash     bool          // a crash restarts the server (else broken at once)
	Transport          string        // stdio, tcp or unix
}

// Effective resolves s's zero-valued fields to the documented defaults.
func (s *Server) Effective() Effective {
	e := Effective{
		StartupTimeout:     or(time.Duration(s.StartupTimeout), DefaultStartupTimeout),
		RequestTimeout:     or(time.Duration(s.RequestTimeout), DefaultRequestTimeout),
		ShutdownTimeout:    or(time.Duration(s.ShutdownTimeout), DefaultShutdownTimeout),
		IdleTimeout:        or(time.Duration(s.IdleTimeout), DefaultIdleTimeout),
		DiagnosticsTimeout: or(time.Duration(s.DiagnosticsTimeout), DefaultDiagnosticsWait),
		MaxRestarts:        or(s.MaxRestarts, DefaultMaxRestarts),
		MaxInFlight:        or(s.MaxInFlight, DefaultMaxInFlight),
		MaxMessageSize:     or(s.MaxMessageSize, DefaultMaxMessageSize),
		RestartOnCrash:     s.RestartOnCrash == nil || *s.RestartOnCrash,
		Transport:          or(s.Transport, TransportStdio),
	}
	return e
}

// or returns v, or def when v is zero or negative.
func or[T int | int64 | time.Duration | string](v, def T) T {
	var zero T
	if v <= zero {
		return def
	}
	return v
}

// Clone returns a deep copy of s.
func (s *Server) Clone() *Server {
	c := *s
	c.Args = append([]string(nil), s.Args...)
	c.RootMarkers = append([]string(nil), s.RootMarkers...)
	c.ExcludeMarkers = append([]string(nil), s.ExcludeMarkers...)
	c.ConfigFiles = append([]string(nil), s.ConfigFiles...)
	c.Extensions = cloneMap(s.Extensions)
	c.Filenames = cloneMap(s.Filenames)
	c.Env = cloneMap(s.Env)
	c.InitializationOptions = append(json.RawMessage(nil), s.InitializationOptions...)
	if s.Settings != nil {
		// Settings came from JSON; a JSON round trip is a faithful deep copy.
		// Unmarshal would fill the map c shares with s: start from nil.
		b, _ := json.Marshal(s.Settings)
		c.Settings = nil
		_ = json.Unmarshal(b, &c.Settings)
	}
	if s.RestartOnCrash != nil {
		v := *s.RestartOnCrash
		c.RestartOnCrash = &v
	}
	return &c
}

// LanguageID returns the LSP languageId of path for s, and whether s serves
// it at all: a Filenames match on the base name (any case), else an
// Extensions match on the extension (any case). It ignores Disabled.
func (s *Server) LanguageID(path string) (string, bool) {
	if id, ok := s.byName(path); ok {
		return id, true
	}
	return s.byExtension(path)
}

// IsSource reports whether s serves path as a source file: by its
// extension, not by name as a project file (go.mod for gopls).
func (s *Server) IsSource(path string) bool {
	if _, named := s.byName(path); named {
		return false
	}
	_, ok := s.byExtension(path)
	return ok
}

func (s *Server) byName(path string) (string, bool) {
	base := filepath.Base(path)
	for name, id := range s.Filenames {
		if strings.EqualFold(name, base) {
			return id, true
		}
	}
	return "", false
}

func (s *Server) byExtension(path string) (string, bool) {
	ext := filepath.Ext(path)
	if ext == "" {
		return "", false
	}
	id, ok := s.Extensions[strings.ToLower(ext)]
	return id, ok
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("30s", "1m30s") or a number of milliseconds.
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts "30s" or 30000 (milliseconds). Negative durations
// are errors.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v time.Duration
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		p, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q (want for example \"30s\")", s)
		}
		v = p
	} else {
		ms, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("invalid duration %s (want a string like \"30s\" or milliseconds)", b)
		}
		v = time.Duration(ms * float64(time.Millisecond))
	}
	if v < 0 {
		return fmt.Errorf("negative duration %s", v)
	}
	*d = Duration(v)
	return nil
}
