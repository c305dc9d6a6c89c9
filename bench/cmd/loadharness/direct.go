package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/transport"
)

// The direct clients are the baselines: one bare transport.Conn per project
// root, no actors, shared by every session. An edit sends didOpen or an
// incremental didChange, then
//   - directClient (the floor): pulls, or waits for the version-matched
//     publishDiagnostics and then the same settle window as the runtime (a
//     push-only server may publish in phases; no client can know it is done
//     sooner);
//   - sleepClient (sleep > 0): waits a fixed time, then reads the latest
//     pushed diagnostics (or pulls), fresh or not, as some bridges do.

// directClient is a minimal LSP client. Safe for concurrent use.
type directClient struct {
	spec   serverSpec
	roots  []string
	settle time.Duration
	sleep  time.Duration
	slots  []rootSlot
}

// rootSlot is the connection of one root, started on first use.
type rootSlot struct {
	mu  sync.Mutex
	dc  *directConn
	err error
}

func newDirectClient(spec serverSpec, roots []string, settle, sleep time.Duration) *directClient {
	return &directClient{spec: spec, roots: roots, settle: settle, sleep: sleep, slots: make([]rootSlot, len(roots))}
}

// conn returns the root's connection, starting it on first use.
func (c *directClient) conn(ctx context.Context, root int) (*directConn, error) {
	s := &c.slots[root]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dc == nil && s.err == nil {
		s.dc, s.err = startDirect(ctx, c.spec, c.roots[root])
	}
	return s.dc, s.err
}

// edit syncs the new text and waits for the diagnostics of its version.
func (c *directClient) edit(ctx context.Context, _ int, f *file, text string, timeout time.Duration) (outcome, error) {
	dc, err := c.conn(ctx, f.root)
	if err != nil {
		return outcome{}, err
	}
	uri := paths.URI(f.path)
	version, err := dc.send(uri, c.spec.languageID, text)
	if err != nil {
		return outcome{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if c.sleep > 0 {
		if err := sleepCtx(ctx, c.sleep); err != nil {
			return outcome{}, err
		}
	}
	if dc.pull {
		n, err := dc.pullErrors(ctx, uri)
		return outcome{status: messages.StatusFresh, errors: n}, err
	}
	if c.sleep > 0 {
		return dc.latest(uri, version), nil
	}
	n, ok := dc.wait(ctx, uri, version)
	if !ok {
		return outcome{status: messages.StatusTimeout}, nil
	}
	if err := sleepCtx(ctx, c.settle); err != nil {
		return outcome{}, err
	}
	if late := dc.latest(uri, version); late.status == messages.StatusFresh {
		n = late.errors // a phase published during the settle window
	}
	return outcome{status: messages.StatusFresh, errors: n}, nil
}

// nav sends hover (even k) or definition (odd k), opening the file first
// if no session has.
func (c *directClient) nav(ctx context.Context, _ int, f *file, k int) error {
	dc, err := c.conn(ctx, f.root)
	if err != nil {
		return err
	}
	uri := paths.URI(f.path)
	if err := dc.ensureOpen(uri, c.spec.languageID, f.path); err != nil {
		return err
	}
	method, pos := "textDocument/hover", f.hover
	if k%2 == 1 {
		method, pos = "textDocument/definition", f.def
	}
	_, err = dc.conn.Call(ctx, method, map[string]any{
		"textDocument": map[string]string{"uri": uri},
		"position":     pos,
	})
	return err
}

// close shuts every connection down gracefully, in parallel.
func (c *directClient) close(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, len(c.slots))
	for i := range c.slots {
		dc := c.slots[i].dc
		if dc == nil {
			continue
		}
		wg.Add(1)
		// One per connection, joined below.
		go func() {
			defer wg.Done()
			errs[i] = dc.conn.Shutdown(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// directConn is one connection and the documents open on it.
type directConn struct {
	conn        *transport.Conn
	pull        bool
	incremental bool

	mu   sync.Mutex
	docs map[string]*docState
}

// docState is one document: what was sent, and what was published.
type docState struct {
	version   int
	text      string
	published int // latest version diagnostics were pushed for
	errors    int // error diagnostics in that push
	changed   chan struct{}
}

// startDirect starts the server for root and performs the handshake.
func startDirect(ctx context.Context, spec serverSpec, root string) (*directConn, error) {
	dc := &directConn{docs: make(map[string]*docState)}
	rootURI := paths.URI(root)
	folders := []protocol.WorkspaceFolder{{URI: rootURI, Name: filepath.Base(root)}}
	conn, err := transport.Start(ctx, transport.Options{
		Command: spec.def.Command, Args: spec.def.Args, Env: spec.envList(), Dir: root,
		Settings: spec.def.Settings, WorkspaceFolders: folders, OnEvent: dc.onEvent,
	})
	if err != nil {
		return nil, err
	}
	dc.conn = conn
	raw, err := conn.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": rootURI, "workspaceFolders": folders, "capabilities": directCapabilities(),
	})
	if err == nil {
		err = dc.parseCaps(raw)
	}
	if err == nil {
		err = conn.Notify("initialized", map[string]any{})
	}
	if err == nil && spec.def.Settings != nil {
		err = conn.Notify("workspace/didChangeConfiguration", map[string]any{"settings": spec.def.Settings})
	}
	if err != nil {
		conn.Kill()
		<-conn.Done()
		return nil, fmt.Errorf("direct client: %s: %w", root, err)
	}
	return dc, nil
}

// directCapabilities declares what the direct client handles.
func directCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"window":  map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{
			"configuration": true, "workspaceFolders": true,
		},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{"didSave": true},
			"publishDiagnostics": map[string]any{"versionSupport": true},
			"diagnostic":         map[string]any{},
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"definition":         map[string]any{"linkSupport": true},
		},
	}
}

// parseCaps reads the sync kind and whether the server offers pulls.
func (dc *directConn) parseCaps(raw json.RawMessage) error {
	var r struct {
		Capabilities struct {
			TextDocumentSync   json.RawMessage `json:"textDocumentSync"`
			DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	var kind int
	var opts struct {
		Change int `json:"change"`
	}
	if json.Unmarshal(r.Capabilities.TextDocumentSync, &kind) != nil && json.Unmarshal(r.Capabilities.TextDocumentSync, &opts) == nil {
		kind = opts.Change
	}
	dc.incremental = kind == 2
	p := r.Capabilities.DiagnosticProvider
	dc.pull = len(p) > 0 && string(p) != "null" && string(p) != "false"
	return nil
}
