package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LoadAny reads the configuration file at path in the format its name
// tells: opencode.json or opencode.jsonc is OpenCode's (ParseOpenCode), a
// name ending in .lsp.json is a Claude Code plugin's (ParseClaudeLSP), any
// other is agentlsp's (Parse). It blocks on the file system.
func LoadAny(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	switch base := strings.ToLower(filepath.Base(path)); {
	case base == "opencode.json" || base == "opencode.jsonc":
		return ParseOpenCode(data, path)
	case strings.HasSuffix(base, ".lsp.json"):
		return ParseClaudeLSP(data, path)
	}
	return Parse(data, path)
}

// openCodeIDs maps OpenCode's names of built-in servers to agentlsp's.
var openCodeIDs = map[string]string{
	"typescript": "typescript-language-server",
	"rust":       "rust-analyzer",
	"bash":       "bash-language-server",
	"yaml-ls":    "yaml-language-server",
	"dockerfile": "dockerfile-language-server",
}

// openCodeKeys maps agentlsp's field names to OpenCode's keys, for errors.
var openCodeKeys = map[string]string{
	"command": "command", "args": "command", "initializationOptions": "initialization",
}

// ParseOpenCode reads the "lsp" section of an OpenCode configuration
// (opencode.json; comments and trailing commas are allowed, as OpenCode
// allows them): {"lsp": {"<id>": {"command": ["bin", "arg"...],
// "extensions": [".x"], "disabled": bool, "env": {...}, "initialization":
// {...}}}}, or "lsp": false, which disables every built-in server. The rest
// of the file is OpenCode's and is ignored. OpenCode's names of built-in
// servers ("typescript", "rust", "bash", "yaml-ls", "dockerfile") become
// agentlsp's; extensions get their usual languageId. Entries are validated
// like Parse's, with paths such as "lsp.gopls.command".
func ParseOpenCode(data []byte, name string) (*File, error) {
	data = stripJSONC(data)
	top, err := decodeTop(name, data)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name, Servers: map[string]*Entry{}}
	raw, ok := top["lsp"]
	if !ok {
		return f, nil
	}
	if string(bytes.TrimSpace(raw)) == "false" {
		for id := range Builtins() {
			f.Servers[id] = &Entry{Server: Server{Disabled: true}, Fields: []string{"disabled"}, Path: "lsp"}
		}
		return f, nil
	}
	servers, err := decodeObject(name, "lsp", raw)
	if err != nil {
		return nil, typeError(name, "lsp", "an object or false", raw, nil)
	}
	for _, key := range slices.Sorted(maps.Keys(servers)) {
		id := key
		if alias, ok := openCodeIDs[key]; ok {
			id = alias
		}
		if prev, dup := f.Servers[id]; dup {
			return nil, errorf(name, join("lsp", key), "the same server as %s", prev.Path)
		}
		if f.Servers[id], err = decodeOpenCode(name, id, join("lsp", key), servers[key]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// decodeOpenCode decodes one OpenCode lsp entry.
func decodeOpenCode(file, id, path string, raw json.RawMessage) (*Entry, error) {
	if err := checkID(file, path, id); err != nil {
		return nil, err
	}
	obj, err := decodeObject(file, path, raw)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		v := obj[key]
		switch key {
		case "disabled", "env":
			out[key] = v
		case "initialization":
			out["initializationOptions"] = v
		case "command":
			if err := openCodeCommand(file, join(path, key), v, out); err != nil {
				return nil, err
			}
		case "extensions":
			if out[key], err = openCodeExtensions(file, join(path, key), v); err != nil {
				return nil, err
			}
		default:
			known := []string{"command", "disabled", "env", "extensions", "initialization"}
			return nil, unknownField(file, path, key, known)
		}
	}
	return decodeFields(file, path, out, openCodeKeys)
}

// openCodeCommand splits OpenCode's command array into command and args.
func openCodeCommand(file, path string, raw json.RawMessage, out map[string]json.RawMessage) error {
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil {
		return typeError(file, path, "an array of strings", raw, err)
	}
	if len(argv) == 0 {
		return errorf(file, path, "empty command")
	}
	out["command"], _ = json.Marshal(argv[0])
	out["args"], _ = json.Marshal(argv[1:])
	return nil
}

// openCodeExtensions turns OpenCode's extension list into an extension to
// languageId map.
func openCodeExtensions(file, path string, raw json.RawMessage) (json.RawMessage, error) {
	var exts []string
	if err := json.Unmarshal(raw, &exts); err != nil {
		return nil, typeError(file, path, "an array of strings", raw, err)
	}
	m := make(map[string]string, len(exts))
	for _, ext := range exts {
		m[ext] = languageIDFor(ext)
	}
	return json.Marshal(m)
}

// knownLanguageIDs are the LSP languageIds of common extensions that no
// built-in server serves.
var knownLanguageIDs = map[string]string{
	".astro": "astro", ".clj": "clojure", ".cs": "csharp", ".dart": "dart", ".ex": "elixir",
	".exs": "elixir", ".fs": "fsharp", ".gleam": "gleam", ".hs": "haskell", ".java": "java",
	".kt": "kotlin", ".kts": "kotlin", ".lua": "lua", ".ml": "ocaml", ".nix": "nix",
	".php": "php", ".prisma": "prisma", ".rb": "ruby", ".svelte": "svelte", ".swift": "swift",
	".tf": "terraform", ".vue": "vue", ".zig": "zig", ".zsh": "shellscript", ".ksh": "shellscript",
}

// languageIDFor returns the usual languageId of ext (".ts" ->
// "typescript"), or ext without its dot.
func languageIDFor(ext string) string {
	lower := strings.ToLower(ext)
	for _, s := range Builtins() {
		if id, ok := s.Extensions[lower]; ok {
			return id
		}
	}
	if id, ok := knownLanguageIDs[lower]; ok {
		return id
	}
	return strings.TrimPrefix(lower, ".")
}
