package config

import (
	"os"
	"path/filepath"
)

// LoadRegistry builds the effective registry: the built-ins with the
// configuration file at path merged over them (an agentlsp JSON config, an
// opencode.json or a Claude Code .lsp.json; "" for none), and server
// commands resolved against dirs (see WithCommandsIn). It reads the file
// system.
func LoadRegistry(path string, dirs []string) (*Registry, error) {
	var file *File
	if path != "" {
		f, err := LoadAny(path)
		if err != nil {
			return nil, err
		}
		file = f
	}
	r, err := NewRegistry(file)
	if err != nil {
		return nil, err
	}
	return r.WithCommandsIn(dirs), nil
}

// WithCommandsIn returns a registry whose bare command names (no slash)
// are replaced by the executable of that name in the first of dirs that
// has one, so installed servers are found without touching PATH; other
// commands stay as they are (looked up in PATH when started).
func (r *Registry) WithCommandsIn(dirs []string) *Registry {
	servers := r.Servers()
	for _, s := range servers {
		s.Command = resolveCommand(s.Command, dirs)
	}
	return RegistryOf(servers...)
}

// CacheDir is where agentlsp installs servers: $AGENTLSP_CACHE, default
// ~/.cache/agentlsp.
func CacheDir() string {
	if cache := os.Getenv("AGENTLSP_CACHE"); cache != "" {
		return cache
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentlsp")
}

// DefaultServerPath lists the directories of the cache where servers are
// installed: bin (Go-built servers) and npm/node_modules/.bin.
func DefaultServerPath() []string {
	cache := CacheDir()
	return []string{filepath.Join(cache, "bin"), filepath.Join(cache, "npm", "node_modules", ".bin")}
}

func resolveCommand(cmd string, dirs []string) string {
	if cmd == "" || filepath.IsAbs(cmd) || filepath.Base(cmd) != cmd {
		return cmd
	}
	for _, d := range dirs {
		p := filepath.Join(d, cmd)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return cmd
}
