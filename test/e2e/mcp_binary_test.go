package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMCPBinaryOverStdio builds the agentlsp command and drives `agentlsp
// mcp` over stdio with the MCP SDK's client, against real gopls and
// pyright: the answers name the right files and 1-based positions.
func TestMCPBinaryOverStdio(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	testenv.ServerBinary(t, "pyright-langserver")
	bin := agentlspBinary(t)
	ws := t.TempDir()
	testenv.CopyInto(t, filepath.Join("..", "testdata", "gomod"), filepath.Join(ws, "gomod"))
	testenv.CopyInto(t, filepath.Join("..", "testdata", "pyproj"), filepath.Join(ws, "pyproj"))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--workspace", ws)
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tests := []struct {
		args map[string]any
		want []location
	}{
		{map[string]any{"operation": "goToDefinition", "filePath": "gomod/main.go", "line": 11, "symbol": "Greeting"},
			[]location{{"gomod/main.go", 6, 6}}},
		{map[string]any{"operation": "findReferences", "filePath": "gomod/main.go", "line": 6, "character": 7},
			[]location{{"gomod/main.go", 6, 6}, {"gomod/main.go", 11, 14}}},
		{map[string]any{"operation": "goToDefinition", "filePath": "pyproj/main.py", "line": 3, "symbol": "helper"},
			[]location{{"pyproj/util.py", 1, 5}}},
	}
	for _, tc := range tests {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lsp", Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("lsp %v: %v %+v", tc.args, err, res)
		}
		if got := locationsOf(t, res.StructuredContent); !cmp.Equal(got, tc.want) {
			t.Errorf("lsp %v = %v, want %v", tc.args, got, tc.want)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lsp", Arguments: map[string]any{
		"operation": "hover", "filePath": "gomod/main.go", "line": 99, "character": 1}})
	if err != nil || !res.IsError {
		t.Errorf("hover past the end of the file = %+v, %v; want a tool error", res, err)
	}
}

type location struct {
	Path         string
	Line, Column int
}

func locationsOf(t *testing.T, structured any) []location {
	t.Helper()
	raw, _ := json.Marshal(structured)
	var out struct {
		Locations []struct {
			Path   string `json:"path"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"locations"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	var locs []location
	for _, l := range out.Locations {
		locs = append(locs, location{l.Path, l.Line, l.Column})
	}
	return locs
}
