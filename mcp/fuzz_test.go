package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// FuzzToolArgs: whatever arguments an agent sends, the lsp and diagnostics
// tools answer (a result or a tool error) within their timeout, and never
// panic or hang. The tools run against the fake server.
func FuzzToolArgs(f *testing.F) {
	for _, seed := range []string{
		`{"operation":"hover","filePath":"a.py","line":1,"character":1}`,
		`{"operation":"goToDefinition","filePath":"a.py","line":1,"symbol":"x"}`,
		`{"operation":"workspaceSymbol","query":"x"}`,
		`{"operation":"incomingCalls","filePath":"../etc/passwd","line":-5,"character":99999}`,
		`{"operation":"nope"}`,
		`{"files":["a.py","/etc/passwd",""],"wait":false}`,
	} {
		f.Add([]byte(seed))
	}
	ws := f.TempDir()
	os.WriteFile(filepath.Join(ws, "a.py"), []byte("x = 1\n# é 😀 x\n"), 0o644)
	cmd, args, env := testenv.FakeServer(f)
	reg := config.RegistryOf(&config.Server{ID: "fake", Command: cmd, Args: args, Env: env,
		Extensions: map[string]string{".py": "python"}})
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: reg, NoWatch: true,
		DiagnosticsTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		rt.Shutdown(ctx)
	})
	_, tl := newServer(rt, "fuzz", []Option{WithCallTimeout(5 * time.Second)})
	lsp := guard(tl, "lsp", lspScope, tl.lsp)
	diags := guard(tl, "diagnostics", diagnosticsScope, tl.diagnostics)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var in LSPInput
		if json.Unmarshal(data, &in) == nil {
			if res, _, err := lsp(ctx, nil, in); res == nil && err == nil {
				t.Fatalf("lsp(%s): no result and no error", data)
			}
		}
		var din DiagnosticsInput
		if json.Unmarshal(data, &din) == nil && len(din.Files) <= 4 {
			if res, _, err := diags(ctx, nil, din); res == nil && err == nil {
				t.Fatalf("diagnostics(%s): no result and no error", data)
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: a tool call did not answer in time", data)
		}
	})
}
