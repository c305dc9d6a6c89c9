package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository is a Claude Code plugin whose MCP server runs
// "agentlsp mcp" in the project: its manifest names its .mcp.json, and the
// command line there is one the mcp command accepts.
func TestClaudePlugin(t *testing.T) {
	root := filepath.Join("..", "..")
	var manifest struct {
		Name       string `json:"name"`
		MCPServers string `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(root, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != "agentlsp" || !strings.HasPrefix(manifest.MCPServers, "./") {
		t.Fatalf("plugin.json = %+v, want name agentlsp and a ./ path to its MCP servers", manifest)
	}
	var servers struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(root, filepath.FromSlash(manifest.MCPServers)), &servers)
	s, ok := servers.MCPServers["agentlsp"]
	if !ok || s.Command != "agentlsp" || len(s.Args) == 0 || s.Args[0] != "mcp" {
		t.Fatalf("%s = %+v, want an agentlsp server running agentlsp mcp", manifest.MCPServers, servers)
	}
	if !strings.Contains(strings.Join(s.Args, " "), "--workspace ${CLAUDE_PROJECT_DIR") {
		t.Errorf("args %q, want the project as the workspace", s.Args)
	}
	// Claude Code expands ${VAR:-default}; unset, the server runs in the project.
	expand := regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`)
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = expand.ReplaceAllString(a, "$1")
	}
	args = append(args, "--help")
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)

	var market struct {
		Plugins []struct{ Name, Source string } `json:"plugins"`
	}
	readJSON(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), &market)
	if len(market.Plugins) != 1 || market.Plugins[0].Name != "agentlsp" || market.Plugins[0].Source != "./" {
		t.Errorf("marketplace.json plugins = %+v, want agentlsp from ./", market.Plugins)
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
