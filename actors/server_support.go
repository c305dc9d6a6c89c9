package actors

import (
	"encoding/json"
	"fmt"
)

// providers maps the LSP requests agentlsp sends to the server capability
// that says whether the server handles them.
var providers = map[string]string{
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
	key, known := providers[method]
	if !known || len(a.caps.raw) == 0 {
		return ""
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(a.caps.raw, &caps) != nil {
		return ""
	}
	switch v := string(caps[key]); v {
	case "", "null", "false":
		for _, r := range a.regs {
			if r.Method == method {
				return ""
			}
		}
		return fmt.Sprintf("the server does not offer %s (%s)", method, key)
	}
	return ""
}
