package config

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Registry is the effective set of servers: the built-in definitions with a
// user configuration merged over them. It is immutable, safe for concurrent
// use, and never blocks; every Server it returns is a copy the caller owns.
type Registry struct {
	servers map[string]*Server // every server, disabled ones too
	ids     []string           // the enabled ones, sorted
}

// NewRegistry merges user (nil for none) over Builtins. An entry whose ID is
// a built-in's overrides only the fields it sets: Settings are merged key by
// key at every depth (a null value deletes a key) and Env key by key; every
// other field it sets replaces the built-in's value. "disabled": true
// disables a server, false enables a built-in that is disabled by default.
// An entry with a new ID adds a server, which needs a command (unless it
// connects to a socket) and extensions or filenames. Errors are *Error.
// The Registry keeps no reference to user.
func NewRegistry(user *File) (*Registry, error) {
	servers := Builtins()
	if user != nil {
		for _, id := range slices.Sorted(maps.Keys(user.Servers)) {
			s, err := applyEntry(user.Name, id, user.Servers[id], servers[id])
			if err != nil {
				return nil, err
			}
			servers[id] = s
		}
	}
	r := &Registry{servers: servers}
	for _, id := range slices.Sorted(maps.Keys(servers)) {
		if !servers[id].Disabled {
			r.ids = append(r.ids, id)
		}
	}
	return r, nil
}

// applyEntry validates e and returns base (nil for a new server) with e
// merged over it.
func applyEntry(file, id string, e *Entry, base *Server) (*Server, error) {
	if err := checkID(file, e.Path, id); err != nil {
		return nil, err
	}
	if err := validateEntry(file, e); err != nil {
		return nil, err
	}
	builtin := base != nil
	if !builtin {
		base = &Server{}
	}
	s := merge(base, e)
	s.ID = id
	if err := checkMerged(file, e, s, builtin); err != nil {
		return nil, err
	}
	return s, nil
}

// merge returns a copy of base with the fields e sets taken from e.
func merge(base *Server, e *Entry) *Server {
	s := base.Clone()
	src := e.Server.Clone()
	dst, from := reflect.ValueOf(s).Elem(), reflect.ValueOf(src).Elem()
	for _, name := range e.Fields {
		switch name {
		case "settings":
			s.Settings = mergeSettings(s.Settings, src.Settings)
		case "env":
			s.Env = mergeEnv(s.Env, src.Env)
		default:
			i := serverFields[name].index
			dst.Field(i).Set(from.Field(i))
		}
	}
	s.Extensions = lowerKeys(s.Extensions)
	return s
}

// mergeSettings returns dst with src merged in, recursively for objects; a
// nil value in src deletes the key. Neither argument is modified.
func mergeSettings(dst, src map[string]any) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		sub, isObj := v.(map[string]any)
		prev, wasObj := out[k].(map[string]any)
		switch {
		case v == nil:
			delete(out, k)
		case isObj && wasObj:
			out[k] = mergeSettings(prev, sub)
		default:
			out[k] = v
		}
	}
	return out
}

func mergeEnv(dst, src map[string]string) map[string]string {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, src)
	return out
}

func lowerKeys(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}

// Servers returns the enabled servers, sorted by ID.
func (r *Registry) Servers() []*Server {
	out := make([]*Server, len(r.ids))
	for i, id := range r.ids {
		out[i] = r.servers[id].Clone()
	}
	return out
}

// All returns every configured server, disabled ones too, sorted by ID.
func (r *Registry) All() []*Server {
	var out []*Server
	for _, id := range slices.Sorted(maps.Keys(r.servers)) {
		out = append(out, r.servers[id].Clone())
	}
	return out
}

// Get returns the server with the given ID, enabled or not, and whether
// there is one.
func (r *Registry) Get(id string) (*Server, bool) {
	s, ok := r.servers[id]
	if !ok {
		return nil, false
	}
	return s.Clone(), true
}

// ForPath returns the enabled servers that serve path (see
// Server.LanguageID), sorted by ID; several may. It does not look at the
// file system: root markers are FindRoot's business.
func (r *Registry) ForPath(path string) []*Server {
	out := r.Match(path)
	for i, s := range out {
		out[i] = s.Clone()
	}
	return out
}

// Match is ForPath without the copies: the registry's own servers, which
// the caller must not modify. A Registry never changes them, so they may
// be read from any goroutine. It is for the paths every call takes (the
// router routes each message with it): a copy costs more than the match,
// most of it in a server's Settings.
func (r *Registry) Match(path string) []*Server {
	var out []*Server
	for _, id := range r.ids {
		if _, ok := r.servers[id].LanguageID(path); ok {
			out = append(out, r.servers[id])
		}
	}
	return out
}

// Extensions returns the file extensions the enabled servers serve, sorted
// and without duplicates, for messages that list what is configured.
func (r *Registry) Extensions() []string {
	set := map[string]bool{}
	for _, id := range r.ids {
		for ext := range r.servers[id].Extensions {
			set[ext] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// RegistryOf returns a registry of exactly the given servers, without the
// built-ins (for embedders that configure everything in code, and tests).
// The servers are copied; they are not validated.
func RegistryOf(servers ...*Server) *Registry {
	r := &Registry{servers: make(map[string]*Server, len(servers))}
	for _, s := range servers {
		r.servers[s.ID] = s.Clone()
	}
	for _, id := range slices.Sorted(maps.Keys(r.servers)) {
		if !r.servers[id].Disabled {
			r.ids = append(r.ids, id)
		}
	}
	return r
}
