package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Peers: the other MCP bridges to language servers that agents use, run
// side by side with agentlsp on copies of the same workspace with the same
// gopls, spoken to by the same lean client (--peer NAME=PATH, the peers
// phase). Each bridge has its own tools and answers in text; an adapter
// maps the operations measured onto its tools and reads its answers. The
// answer texts the adapters read were recorded from the versions named
// (peers_test.go keeps them).

// peerOps are the operations the peers phase measures: those every bridge
// offers in some form (mcp-language-server has no other navigation).
var peerOps = []string{"goToDefinition", "findReferences", "hover"}

// adapter is one bridge.
type adapter struct {
	// command returns the bridge's arguments and environment (added to
	// this process's) for a workspace served with gopls; tmp is the run's
	// temporary directory, for a configuration file.
	command func(ws, gopls, tmp string) (args, env []string, err error)
	// op returns the tool call for op, ok false if the bridge has none.
	op func(op string, t target, ws string) (tool string, args map[string]any, ok bool)
	// check refuses (ErrWrong) an answer that does not say what it must.
	check func(op, text string, t target, ws string) error
	// diagnostics is the call for the caller's diagnostics, and hasError
	// reads from its answer whether it shows an error on the call's line.
	diagnostics func(t target, ws string) (tool string, args map[string]any)
	hasError    func(text string, t target, ws string) bool
}

// adapters are the bridges known, by the name --peer gives.
var adapters = map[string]adapter{
	// isaacphi/mcp-language-server v0.1.1 (Go): definition and references
	// by a symbol's qualified name, hover and diagnostics by file.
	"mcp-language-server": {
		command: func(ws, gopls, _ string) ([]string, []string, error) {
			return []string{"--workspace", ws, "--lsp", gopls}, nil, nil
		},
		op: func(op string, t target, ws string) (string, map[string]any, bool) {
			qualified := filepath.Base(filepath.Dir(filepath.FromSlash(t.Def.Path))) + "." + t.Name
			switch op {
			case "goToDefinition":
				return "definition", map[string]any{"symbolName": qualified}, true
			case "findReferences":
				return "references", map[string]any{"symbolName": qualified}, true
			case "hover":
				return "hover", map[string]any{"filePath": abs(ws, t.Call), "line": t.Call.Line, "column": t.Call.Column}, true
			}
			return "", nil, false
		},
		check: func(op, text string, t target, ws string) error {
			switch op {
			case "goToDefinition":
				return mustContain(op, text, "File: "+abs(ws, t.Def)+"\n", fmt.Sprintf("Range: L%d:", t.Def.Line))
			case "findReferences":
				return mustContain(op, text, abs(ws, t.Call)+"\n", fmt.Sprintf("L%d:C%d", t.Call.Line, t.Call.Column))
			}
			return hoverNames(text, t)
		},
		diagnostics: func(t target, ws string) (string, map[string]any) {
			return "diagnostics", map[string]any{"filePath": abs(ws, t.Call)}
		},
		hasError: func(text string, t target, _ string) bool {
			return strings.Contains(text, fmt.Sprintf("ERROR at L%d:", t.Call.Line))
		},
	},
	// ktnyt/cclsp 0.7.0 (Node): definition and references by a name and
	// the file it is looked up in, hover and diagnostics by file. Its
	// definition from a call site names the symbol of that name declared
	// in the file, not the one called.
	"cclsp": {
		command: func(ws, gopls, tmp string) ([]string, []string, error) {
			cfg, _ := json.Marshal(map[string]any{"servers": []any{map[string]any{
				"extensions": []string{"go"}, "command": []string{gopls}, "rootDir": ws}}})
			f, err := os.CreateTemp(tmp, "cclsp-*.json")
			if err == nil {
				_, err = f.Write(cfg)
				err = errors.Join(err, f.Close())
			}
			if err != nil {
				return nil, nil, err
			}
			return nil, []string{"CCLSP_CONFIG_PATH=" + f.Name()}, nil
		},
		op: func(op string, t target, ws string) (string, map[string]any, bool) {
			switch op {
			case "goToDefinition":
				return "find_definition", map[string]any{"file_path": abs(ws, t.Call), "symbol_name": t.Name}, true
			case "findReferences": // looked up in the file that declares it
				return "find_references", map[string]any{"file_path": abs(ws, t.Def), "symbol_name": t.Name}, true
			case "hover":
				return "get_hover", map[string]any{"file_path": abs(ws, t.Call), "line": t.Call.Line, "character": t.Call.Column}, true
			}
			return "", nil, false
		},
		check: func(op, text string, t target, ws string) error {
			switch op {
			case "goToDefinition":
				return mustContain(op, text, fmt.Sprintf("%s:%d:", abs(ws, t.Def), t.Def.Line))
			case "findReferences":
				return mustContain(op, text, fmt.Sprintf("%s:%d:%d", abs(ws, t.Call), t.Call.Line, t.Call.Column))
			}
			return hoverNames(text, t)
		},
		diagnostics: func(t target, ws string) (string, map[string]any) {
			return "get_diagnostics", map[string]any{"file_path": abs(ws, t.Call)}
		},
		hasError: func(text string, t target, _ string) bool {
			return strings.Contains(text, "Error [") && strings.Contains(text, fmt.Sprintf("Location: Line %d,", t.Call.Line))
		},
	},
}

// abs is l's file in the workspace copy ws.
func abs(ws string, l loc) string { return filepath.Join(ws, filepath.FromSlash(l.Path)) }

// mustContain refuses text unless it has every part.
func mustContain(op, text string, parts ...string) error {
	for _, p := range parts {
		if !strings.Contains(text, p) {
			return fmt.Errorf("%w: %s: the answer lacks %q: %.300q", ErrWrong, op, p, text)
		}
	}
	return nil
}

// hoverNames accepts a hover that shows the called function's signature.
func hoverNames(text string, t target) error {
	return mustContain("hover", text, "func ", t.Name+"(")
}

// peerSide is one MCP bridge and its lean client: agentlsp itself (ad nil:
// its structured answers, read as the nav phase reads them) or a peer.
type peerSide struct {
	name string
	ad   *adapter
	m    *mcpSide
}

// startPeer starts a client of the peers phase on its workspace copy ws.
func (b *bench) startPeer(ctx context.Context, c peerSpec, ws string) (*peerSide, error) {
	if c.name == "agentlsp" {
		m, err := startMCP(ctx, c.path, ws, b.config, b.tmp, b.o.callTimeout, b.o.mcpArgs, true)
		return &peerSide{name: c.label, m: m}, err
	}
	ad := adapters[c.name]
	args, env, err := ad.command(ws, b.o.gopls, b.tmp)
	if err != nil {
		return nil, err
	}
	cmd, stderr, err := command(b.tmp, c.name, c.path, args...)
	if err != nil {
		return nil, err
	}
	cmd.Dir, cmd.Env = ws, append(os.Environ(), env...)
	m, err := startLean(ctx, cmd, stderr, ws, b.o.callTimeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	m.grace = time.Second // neither bridge exits when its input ends
	return &peerSide{name: c.label, ad: &ad, m: m}, nil
}

// has reports whether the client offers op.
func (p *peerSide) has(op string) bool {
	if p.ad == nil {
		return true
	}
	_, _, ok := p.ad.op(op, target{}, "")
	return ok
}

// do runs op and checks the answer; the time ends when the client has it.
func (p *peerSide) do(ctx context.Context, op string, t target) (time.Duration, error) {
	if p.ad == nil {
		return p.m.do(ctx, op, t)
	}
	tool, args, _ := p.ad.op(op, t, p.m.root)
	text, d, err := p.text(ctx, time.Now(), tool, args)
	if err != nil {
		return d, err
	}
	return d, p.ad.check(op, text, t, p.m.root)
}

// diagnose calls the diagnostics tool on the caller; the time counts from
// start. The error wraps ErrWrong unless the answer shows an error on the
// call's line (want) or none there (!want); for agentlsp the answer must
// also be fresh.
func (p *peerSide) diagnose(ctx context.Context, start time.Time, t target, want bool) (time.Duration, error) {
	if p.ad == nil {
		return p.m.diagnose(ctx, start, t, want)
	}
	tool, args := p.ad.diagnostics(t, p.m.root)
	text, d, err := p.text(ctx, start, tool, args)
	if err != nil {
		return d, err
	}
	if got := p.ad.hasError(text, t, p.m.root); got != want {
		return d, fmt.Errorf("%w: diagnostics: error on line %d: %v, want %v: %.300q", ErrWrong, t.Call.Line, got, want, text)
	}
	return d, nil
}

// text calls a peer's tool and returns the answer's text.
func (p *peerSide) text(ctx context.Context, start time.Time, tool string, args map[string]any) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, p.m.timeout)
	defer cancel()
	a, d, err := p.m.callLean(ctx, start, tool, args)
	switch {
	case err != nil:
		return "", d, err
	case a.isError:
		return "", d, fmt.Errorf("%w: %s: tool error: %s", ErrWrong, tool, strings.Join(a.text, " "))
	}
	return strings.Join(a.text, "\n"), d, nil
}
