package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The raw side: gopls started directly, spoken to with the minimal client
// (lspclient.go), with the same settings agentlsp gives it.

// goplsSettings are the settings agentlsp's built-in gopls definition
// sends (config/builtin.go), so both servers do the same work; with
// verboseWorkDoneProgress gopls reports a "diagnosing" work around each
// diagnosis, whose end the raw client records as agentlsp waits for it.
var goplsSettings = map[string]any{"gopls": map[string]any{"diagnosticsDelay": "0s", "symbolScope": "workspace",
	"verboseWorkDoneProgress": true}}

// rawSide is one gopls process and its connection. Safe for concurrent
// use, although the benchmark calls it from one goroutine.
type rawSide struct {
	root    string
	timeout time.Duration // of one call
	cmd     *exec.Cmd
	stderr  *os.File
	stdin   *os.File
	stdout  *os.File
	exited  chan error // cmd.Wait's result
	conn    *lspConn

	mu      sync.Mutex
	texts   map[string]string // open documents' text, by relative path
	version map[string]int
	pubs    map[string][]publication // by URI, the last few
	seq     int64
	changed chan struct{} // closed and replaced on every publication and diagnosis end

	diagnosing map[string]time.Time // "diagnosing" works in flight: begin time by token
	diagnosed  []diagnosis          // the last few that ended
}

// diagnosis is one of gopls's "diagnosing" works: its begin and end.
type diagnosis struct{ began, ended time.Time }

// publication is one publishDiagnostics, numbered in arrival order.
type publication struct {
	seq   int64
	diags []lspDiagnostic
}

// lspDiagnostic is the part of an LSP diagnostic the checks read.
type lspDiagnostic struct {
	Range struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Message  string `json:"message"`
}

// startRaw starts gopls in root (stderr to a file in tmp), initializes it
// and opens the given files. On error nothing is left running. With a
// relay, gopls runs under it (relay gopls).
func startRaw(ctx context.Context, gopls, relay, root, tmp string, timeout time.Duration, open []string) (_ *rawSide, err error) {
	name, path, args := "gopls", gopls, []string(nil)
	if relay != "" {
		name, path, args = "relayed-gopls", relay, []string{gopls}
	}
	cmd, stderr, err := command(tmp, name, path, args...)
	if err != nil {
		return nil, err
	}
	cmd.Dir = root
	s := &rawSide{root: root, timeout: timeout, cmd: cmd, stderr: stderr, exited: make(chan error, 1), texts: map[string]string{},
		version: map[string]int{}, pubs: map[string][]publication{}, changed: make(chan struct{}),
		diagnosing: map[string]time.Time{}}
	inW, outR, err := spawn(cmd)
	if err != nil {
		stderr.Close()
		return nil, err
	}
	s.stdin, s.stdout = inW, outR
	// Waits for gopls; ends when it exits (close kills it if need be).
	go func() { s.exited <- cmd.Wait() }()
	s.conn = newLSPConn(outR, inW, s.onRequest, s.onNotify)
	defer func() {
		if err != nil {
			err = fmt.Errorf("raw gopls: %w (stderr: %s)", err, tail(stderr, 500))
			s.close(context.Background())
		}
	}()
	if err := s.initialize(ctx); err != nil {
		return nil, err
	}
	for _, f := range open {
		if err := s.open(f); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// spawn starts cmd with new pipes as its stdin and stdout, and returns
// this side's ends. Wait does not close them: they are closed by their
// owner, so that reading stdout to its end never races with Wait.
func spawn(cmd *exec.Cmd) (stdin, stdout *os.File, err error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, err
	}
	return inW, outR, nil
}

// initialize performs the handshake, declaring what agentlsp declares.
func (s *rawSide) initialize(ctx context.Context) error {
	uri := fileURI(s.root)
	params := map[string]any{
		"processId": os.Getpid(), "clientInfo": map[string]any{"name": "mcpbench-raw"},
		"rootUri": uri, "rootPath": s.root, "capabilities": rawCapabilities(),
		"workspaceFolders": []map[string]string{{"uri": uri, "name": filepath.Base(s.root)}},
	}
	cctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	if _, err := s.conn.Call(cctx, "initialize", params); err != nil {
		return err
	}
	if err := s.conn.Notify("initialized", map[string]any{}); err != nil {
		return err
	}
	return s.conn.Notify("workspace/didChangeConfiguration", map[string]any{"settings": goplsSettings})
}

// rawCapabilities are agentlsp's client capabilities (actors/capabilities.go),
// the parts gopls reads.
func rawCapabilities() map[string]any {
	dyn := map[string]any{"dynamicRegistration": true}
	links := map[string]any{"dynamicRegistration": true, "linkSupport": true}
	kinds := make([]int, 26)
	for i := range kinds {
		kinds[i] = i + 1
	}
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"window":  map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
		"workspace": map[string]any{
			"configuration": true, "workspaceFolders": true, "didChangeConfiguration": dyn,
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true, "relativePatternSupport": true},
			"symbol":                map[string]any{"dynamicRegistration": true, "symbolKind": map[string]any{"valueSet": kinds}},
			"diagnostics":           map[string]any{"refreshSupport": true},
		},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"dynamicRegistration": true, "didSave": true},
			"hover":              map[string]any{"dynamicRegistration": true, "contentFormat": []string{"markdown", "plaintext"}},
			"definition":         links,
			"implementation":     links,
			"references":         dyn,
			"documentSymbol":     map[string]any{"dynamicRegistration": true, "hierarchicalDocumentSymbolSupport": true, "symbolKind": map[string]any{"valueSet": kinds}},
			"callHierarchy":      dyn,
			"publishDiagnostics": map[string]any{"versionSupport": true},
			"diagnostic":         dyn,
		},
	}
}

// onRequest answers gopls's requests: configuration by section ({} for an
// unknown one), null for everything else (progress, registrations).
func (s *rawSide) onRequest(method string, params json.RawMessage) any {
	if method != "workspace/configuration" {
		return nil
	}
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	_ = json.Unmarshal(params, &p)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		out[i] = map[string]any{}
		if v, ok := goplsSettings[it.Section]; ok {
			out[i] = v
		}
	}
	return out
}

// onNotify records publishDiagnostics and gopls's diagnoses.
func (s *rawSide) onNotify(method string, params json.RawMessage) {
	if method == "$/progress" {
		s.onProgress(params)
		return
	}
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p struct {
		URI         string          `json:"uri"`
		Diagnostics []lspDiagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	list := append(s.pubs[p.URI], publication{seq: s.seq, diags: p.Diagnostics})
	if len(list) > 16 {
		list = list[len(list)-16:]
	}
	s.pubs[p.URI] = list
	close(s.changed)
	s.changed = make(chan struct{})
}

// open sends didOpen for a file relative to the root, with its text on
// disk.
func (s *rawSide) open(rel string) error {
	b, err := os.ReadFile(s.abs(rel))
	if err != nil {
		return err
	}
	return s.change(rel, string(b))
}

// ensureOpen opens rel unless it is open; a failure shows in the request.
func (s *rawSide) ensureOpen(rel string) {
	if !s.isOpen(rel) {
		_ = s.open(rel)
	}
}

// isOpen reports whether gopls has rel open from this client.
func (s *rawSide) isOpen(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version[rel] > 0
}

// change sends the full new text of a file, opening it first if needed.
func (s *rawSide) change(rel, text string) error {
	s.mu.Lock()
	s.texts[rel] = text
	s.version[rel]++
	v := s.version[rel]
	s.mu.Unlock()
	if v == 1 {
		return s.conn.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": s.uri(rel), "languageId": "go", "version": 1, "text": text}})
	}
	return s.conn.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": s.uri(rel), "version": v},
		"contentChanges": []map[string]any{{"text": text}}})
}

func (s *rawSide) uri(rel string) string { return fileURI(s.abs(rel)) }

// rel converts a URI the server sent to a path relative to the root.
func (s *rawSide) rel(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	r, err := filepath.Rel(s.root, u.Path)
	if err != nil || strings.HasPrefix(r, "..") {
		return u.Path
	}
	return filepath.ToSlash(r)
}

// line returns line n (1-based) of a file, open or on disk.
func (s *rawSide) line(rel string, n int) string {
	s.mu.Lock()
	text, ok := s.texts[rel]
	s.mu.Unlock()
	if !ok {
		b, _ := os.ReadFile(s.abs(rel))
		text = string(b)
	}
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// close shuts gopls down (shutdown, exit, a bounded wait) and kills what
// is left of its process tree. It always returns with gopls gone.
func (s *rawSide) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := s.conn.Call(ctx, "shutdown", nil)
	if err == nil {
		err = s.conn.Notify("exit", nil)
	}
	s.stdin.Close()
	werr := waitExit(s.cmd, s.exited, 5*time.Second)
	select {
	case <-s.conn.done:
	case <-time.After(5 * time.Second):
	}
	s.stdout.Close() // ends the read loop if a grandchild still held the pipe
	<-s.conn.done
	s.stderr.Close()
	if err != nil {
		return err
	}
	if werr != nil && !isExitError(werr) {
		return werr
	}
	return nil
}

// fileURI is the file URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func isExitError(err error) bool {
	_, ok := err.(*exec.ExitError)
	return ok
}

// onProgress records the begin and end of gopls's "diagnosing" works.
func (s *rawSide) onProgress(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind  string `json:"kind"`
			Title string `json:"title"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	now := time.Now()
	token := string(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch began, ok := s.diagnosing[token]; {
	case p.Value.Kind == "begin" && strings.HasPrefix(p.Value.Title, "diagnosing"):
		s.diagnosing[token] = now
	case p.Value.Kind == "end" && ok:
		delete(s.diagnosing, token)
		s.diagnosed = append(s.diagnosed, diagnosis{began: began, ended: now})
		if len(s.diagnosed) > 16 {
			s.diagnosed = s.diagnosed[len(s.diagnosed)-16:]
		}
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

// diagnosedSince reports whether a diagnosis that began at or after t has
// ended, and when. Called with mu.
func (s *rawSide) diagnosedSince(t time.Time) (time.Time, bool) {
	for _, d := range s.diagnosed {
		if !d.began.Before(t) {
			return d.ended, true
		}
	}
	return time.Time{}, false
}
