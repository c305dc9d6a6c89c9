package main

import (
	"os"
	"path/filepath"
	"strings"
)

// agent is one coding agent setup knows: where its MCP configuration is
// and what an entry looks like there.
type agent struct {
	name string
	// projectFile is the project configuration file in a workspace; nil
	// when the agent has only a user configuration.
	projectFile func(workspace string) string
	globalFile  func(home string) string
	// globalWorkspace is the --workspace a global entry passes when the
	// user gave none: a variable the agent expands, or "" for none (the
	// server then serves the directory the agent starts it in).
	globalWorkspace string
	path            []string // the keys leading to the entry
	format          configFormat
	entry           func(command string, args []string) jsonObject
}

// configFormat is the syntax of a configuration file.
type configFormat int

const (
	formatJSON  configFormat = iota
	formatJSONC              // JSON with comments and trailing commas
	formatTOML
)

// agents are the agents setup knows, by name.
var agents = []agent{
	{
		name:        "claude",
		projectFile: func(ws string) string { return filepath.Join(ws, ".mcp.json") },
		globalFile:  func(home string) string { return filepath.Join(home, ".claude.json") },
		path:        []string{"mcpServers", "agentlsp"},
		format:      formatJSON,
		entry:       commandArgsEntry,
	},
	{
		name:       "codex",
		globalFile: codexConfig,
		path:       []string{"mcp_servers", "agentlsp"},
		format:     formatTOML,
		entry:      commandArgsEntry,
	},
	{
		name:        "opencode",
		projectFile: func(ws string) string { return openCodeFile(ws) },
		globalFile:  func(home string) string { return openCodeFile(openCodeConfigDir(home)) },
		path:        []string{"mcp", "agentlsp"},
		format:      formatJSONC,
		entry: func(command string, args []string) jsonObject {
			return jsonObject{
				{"type", "local"},
				{"command", append([]string{command}, args...)},
				{"enabled", true},
			}
		},
	},
	{
		name:            "cursor",
		projectFile:     func(ws string) string { return filepath.Join(ws, ".cursor", "mcp.json") },
		globalFile:      func(home string) string { return filepath.Join(home, ".cursor", "mcp.json") },
		globalWorkspace: "${workspaceFolder}",
		path:            []string{"mcpServers", "agentlsp"},
		format:          formatJSON,
		entry:           commandArgsEntry,
	},
}

func findAgent(name string) (agent, bool) {
	for _, a := range agents {
		if a.name == name {
			return a, true
		}
	}
	return agent{}, false
}

// commandArgsEntry is the {"command": ..., "args": [...]} entry of Claude
// Code, Codex and Cursor.
func commandArgsEntry(command string, args []string) jsonObject {
	return jsonObject{{"command", command}, {"args", args}}
}

// codexConfig is Codex's configuration: $CODEX_HOME/config.toml, or
// ~/.codex/config.toml.
func codexConfig(home string) string {
	if dir := os.Getenv("CODEX_HOME"); dir != "" {
		return filepath.Join(dir, "config.toml")
	}
	return filepath.Join(home, ".codex", "config.toml")
}

// openCodeConfigDir is OpenCode's user configuration directory:
// $XDG_CONFIG_HOME/opencode, or ~/.config/opencode.
func openCodeConfigDir(home string) string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "opencode")
	}
	return filepath.Join(home, ".config", "opencode")
}

// openCodeFile is dir's opencode.json, or its opencode.jsonc if only that
// exists (OpenCode reads either).
func openCodeFile(dir string) string {
	json := filepath.Join(dir, "opencode.json")
	jsonc := filepath.Join(dir, "opencode.jsonc")
	if _, err := os.Stat(json); err != nil {
		if _, err := os.Stat(jsonc); err == nil {
			return jsonc
		}
	}
	return json
}

// merge returns the file's text with the entry merged in, and whether it
// differs from old.
func (a agent) merge(file string, old []byte, existed bool, entry jsonObject) ([]byte, bool, error) {
	if a.format == formatTOML {
		return mergeTOML(file, old, a.path, entry)
	}
	if !existed {
		old = nil
	}
	return mergeJSON(file, old, a.format == formatJSONC, a.path, entry)
}

// snippet is the entry as the agent's file holds it, for --print.
func (a agent) snippet(entry jsonObject) (string, error) {
	if a.format == formatTOML {
		return tomlTable(a.path, entry)
	}
	var v any = entry
	for i := len(a.path) - 1; i >= 0; i-- {
		v = jsonObject{{a.path[i], v}}
	}
	text, err := encodeJSON(v, "", "  ")
	return strings.TrimRight(text, "\n") + "\n", err
}
