package config

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
)

// claudeFields maps the fields of a Claude Code .lsp.json entry to
// agentlsp's; "" marks a field read and ignored.
var claudeFields = map[string]string{
	"command":               "command",
	"args":                  "args",
	"extensionToLanguage":   "extensions",
	"transport":             "transport",
	"env":                   "env",
	"initializationOptions": "initializationOptions",
	"settings":              "settings",
	"startupTimeout":        "startupTimeout",
	"shutdownTimeout":       "shutdownTimeout",
	"restartOnCrash":        "restartOnCrash",
	"maxRestarts":           "maxRestarts",
	"loggingConfig":         "", // the server's debug logging, which agentlsp does not enable
}

// claudeKeys maps agentlsp's field names to the .lsp.json keys, for errors.
var claudeKeys = func() map[string]string {
	m := map[string]string{}
	for key, field := range claudeFields {
		if field != "" {
			m[field] = key
		}
	}
	return m
}()

// pluginRootVar is expanded in a Claude Code plugin's files.
const pluginRootVar = "${CLAUDE_PLUGIN_ROOT}"

// ParseClaudeLSP reads a Claude Code plugin's LSP configuration: a .lsp.json
// file, {"<id>": {"command": "bin", "args": [...], "extensionToLanguage":
// {".go": "go"}, "transport": "stdio", "env": {...},
// "initializationOptions": {...}, "settings": {...}, "startupTimeout": ms,
// "shutdownTimeout": ms, "restartOnCrash": bool, "maxRestarts": n}}, or the
// same object under a top-level "lspServers" key (a plugin.json, whose
// other keys are ignored). "loggingConfig" is ignored; other unknown fields
// are errors. ${CLAUDE_PLUGIN_ROOT} becomes the plugin's directory, made
// absolute: name's directory, or its parent for a file in .claude-plugin/. Entries are
// validated like Parse's, with paths such as "go.extensionToLanguage".
func ParseClaudeLSP(data []byte, name string) (*File, error) {
	top, err := decodeTop(name, data)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if raw, ok := top["lspServers"]; ok {
		prefix = "lspServers"
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
			return nil, errorf(name, prefix, "a path (%s): import that file instead", raw)
		}
		if top, err = decodeObject(name, prefix, raw); err != nil {
			return nil, err
		}
	}
	f := &File{Name: name, Servers: map[string]*Entry{}}
	root := pluginDir(name)
	for _, id := range slices.Sorted(maps.Keys(top)) {
		if f.Servers[id], err = decodeClaude(name, id, join(prefix, id), top[id], root); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// decodeClaude decodes one .lsp.json entry.
func decodeClaude(file, id, path string, raw json.RawMessage, root string) (*Entry, error) {
	if err := checkID(file, path, id); err != nil {
		return nil, err
	}
	obj, err := decodeObject(file, path, raw)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		field, ok := claudeFields[key]
		if !ok {
			return nil, unknownField(file, path, key, slices.Sorted(maps.Keys(claudeFields)))
		}
		if field != "" {
			out[field] = expandPluginRoot(obj[key], root)
		}
	}
	return decodeFields(file, path, out, claudeKeys)
}

// pluginDir is the absolute directory of the plugin whose file is name.
func pluginDir(name string) string {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		dir = filepath.Dir(name)
	}
	if filepath.Base(dir) == ".claude-plugin" {
		dir = filepath.Dir(dir)
	}
	return dir
}

// expandPluginRoot replaces ${CLAUDE_PLUGIN_ROOT} in raw JSON with dir, as
// the inside of a JSON string.
func expandPluginRoot(raw json.RawMessage, dir string) json.RawMessage {
	if !bytes.Contains(raw, []byte(pluginRootVar)) {
		return raw
	}
	quoted, _ := json.Marshal(dir)
	return bytes.ReplaceAll(raw, []byte(pluginRootVar), quoted[1:len(quoted)-1])
}
