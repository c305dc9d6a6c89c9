package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/textpos"
)

// clientCapabilities are the LSP client capabilities agentlsp declares:
// only what it really handles. Pull diagnostics are declared (LSP 3.17)
// because several servers push nothing otherwise, and pushes are still
// accepted.
func clientCapabilities() map[string]any {
	dynamic := map[string]any{"dynamicRegistration": true}
	return map[string]any{
		"general": map[string]any{
			"positionEncodings": []string{"utf-16"}, // one encoding for every server: see textpos
		},
		"window": map[string]any{
			"workDoneProgress": true,
			"showMessage":      map[string]any{},
		},
		"workspace": map[string]any{
			"configuration":          true,
			"workspaceFolders":       true,
			"applyEdit":              false,
			"didChangeConfiguration": dynamic,
			"didChangeWatchedFiles": map[string]any{
				"dynamicRegistration":    true,
				"relativePatternSupport": true,
			},
			"symbol": map[string]any{
				"dynamicRegistration": true,
				"symbolKind":          map[string]any{"valueSet": symbolKinds()},
			},
			"diagnostics": map[string]any{"refreshSupport": true},
		},
		"textDocument": textDocumentCapabilities(),
	}
}

func textDocumentCapabilities() map[string]any {
	dynamic := map[string]any{"dynamicRegistration": true}
	links := map[string]any{"dynamicRegistration": true, "linkSupport": true}
	return map[string]any{
		"synchronization": map[string]any{
			"dynamicRegistration": true,
			"didSave":             true,
			"willSave":            false,
			"willSaveWaitUntil":   false,
		},
		"hover": map[string]any{
			"dynamicRegistration": true,
			"contentFormat":       []string{"markdown", "plaintext"},
		},
		"definition":     links,
		"implementation": links,
		"references":     dynamic,
		"documentSymbol": map[string]any{
			"dynamicRegistration":               true,
			"hierarchicalDocumentSymbolSupport": true,
			"symbolKind":                        map[string]any{"valueSet": symbolKinds()},
		},
		"callHierarchy": dynamic,
		"publishDiagnostics": map[string]any{
			"relatedInformation":     false,
			"versionSupport":         true,
			"codeDescriptionSupport": false,
			"dataSupport":            false,
		},
		"diagnostic": map[string]any{
			"dynamicRegistration":    true,
			"relatedDocumentSupport": false,
		},
	}
}

func symbolKinds() []int {
	kinds := make([]int, 26)
	for i := range kinds {
		kinds[i] = i + 1
	}
	return kinds
}

// initializeParams builds the initialize request for a server rooted at root.
func initializeParams(root string, initOptions json.RawMessage) map[string]any {
	rootURI := paths.URI(root)
	p := map[string]any{
		"processId":    os.Getpid(),
		"clientInfo":   map[string]any{"name": "agentlsp", "version": "0.1.0"},
		"rootUri":      rootURI,
		"rootPath":     root,
		"capabilities": clientCapabilities(),
		"workspaceFolders": []protocol.WorkspaceFolder{
			{URI: rootURI, Name: filepath.Base(root)},
		},
		"trace": "off",
	}
	if len(initOptions) > 0 {
		p["initializationOptions"] = initOptions
	}
	return p
}

// serverCaps is what the actor needs from the server's capabilities.
type serverCaps struct {
	raw        json.RawMessage
	sync       docs.Sync       // how documents are synchronised
	pull       *pulls.Provider // static diagnosticProvider, nil when none
	commands   []string        // executeCommandProvider's commands
	tsserver   bool            // diagnostics pulled from tsserver (tsserver.go)
	serverName string
	// offered holds the provider capabilities (providerCaps' values) the
	// server declares, set neither null nor false; nil when it declared
	// none we could read.
	offered map[string]bool
}

// parseCaps reads the initialize result.
func parseCaps(result json.RawMessage) (serverCaps, error) {
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return serverCaps{}, err
	}
	var c struct {
		TextDocumentSync       json.RawMessage `json:"textDocumentSync"`
		PositionEncoding       string          `json:"positionEncoding"`
		DiagnosticProvider     json.RawMessage `json:"diagnosticProvider"`
		ExecuteCommandProvider struct {
			Commands []string `json:"commands"`
		} `json:"executeCommandProvider"`
	}
	if len(r.Capabilities) > 0 {
		if err := json.Unmarshal(r.Capabilities, &c); err != nil {
			return serverCaps{}, err
		}
	}
	caps := serverCaps{raw: r.Capabilities, serverName: r.ServerInfo.Name}
	var top map[string]json.RawMessage
	if json.Unmarshal(r.Capabilities, &top) == nil {
		caps.offered = map[string]bool{}
		for _, key := range providerCaps {
			switch string(top[key]) {
			case "", "null", "false":
			default:
				caps.offered[key] = true
			}
		}
	}
	caps.sync.Encoding = textpos.ParseEncoding(c.PositionEncoding)
	caps.pull = parsePullProvider(c.DiagnosticProvider)
	caps.commands = c.ExecuteCommandProvider.Commands
	caps.sync.Kind, caps.sync.OpenClose, caps.sync.Save = parseSync(c.TextDocumentSync)
	return caps, nil
}

// takesSave reports whether the server wants didSave: its
// textDocumentSync says so, or it registered for it (rust-analyzer does,
// to a client that offers dynamic registration of synchronisation).
func (a *serverActor) takesSave() bool {
	if a.caps.sync.Save {
		return true
	}
	for _, r := range a.regs {
		if r.Method == "textDocument/didSave" {
			return true
		}
	}
	return false
}

// parseSync reads textDocumentSync: a bare kind number or an options object.
func parseSync(raw json.RawMessage) (kind int, openClose, save bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, false
	}
	if err := json.Unmarshal(raw, &kind); err == nil {
		// A bare kind implies open/close and save notifications.
		return kind, kind > 0, kind > 0
	}
	var o struct {
		OpenClose bool            `json:"openClose"`
		Change    int             `json:"change"`
		Save      json.RawMessage `json:"save"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return 0, false, false
	}
	save = len(o.Save) > 0 && string(o.Save) != "false" && string(o.Save) != "null"
	return o.Change, o.OpenClose, save
}

// parsePullProvider reads DiagnosticOptions; nil when absent or false.
func parsePullProvider(raw json.RawMessage) *pulls.Provider {
	switch string(raw) {
	case "", "null", "false":
		return nil
	}
	var o struct {
		Identifier            string `json:"identifier"`
		InterFileDependencies bool   `json:"interFileDependencies"`
	}
	_ = json.Unmarshal(raw, &o) // `true` or a malformed object: no identifier
	return &pulls.Provider{Identifier: o.Identifier, InterFile: o.InterFileDependencies}
}

// providerCaps maps the LSP requests agentlsp sends to the server
// capability that says whether the server handles them.
var providerCaps = map[string]string{
	"textDocument/definition":           "definitionProvider",
	"textDocument/references":           "referencesProvider",
	"textDocument/hover":                "hoverProvider",
	"textDocument/documentSymbol":       "documentSymbolProvider",
	"workspace/symbol":                  "workspaceSymbolProvider",
	"textDocument/implementation":       "implementationProvider",
	"textDocument/prepareCallHierarchy": "callHierarchyProvider",
	"callHierarchy/incomingCalls":       "callHierarchyProvider",
	"callHierarchy/outgoingCalls":       "callHierarchyProvider",
}

// unsupported says why the running server cannot answer method, or "" when
// it can (or agentlsp cannot tell: methods it does not know, and dynamic
// registrations, are let through).
func (a *serverActor) unsupported(method string) string {
	key, known := providerCaps[method]
	if !known || a.caps.offered == nil || a.caps.offered[key] {
		return ""
	}
	for _, r := range a.regs {
		if r.Method == method {
			return ""
		}
	}
	return fmt.Sprintf("the server does not offer %s (%s)", method, key)
}
