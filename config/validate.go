package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/lspglob"
)

// shellMeta are the characters that betray a shell command line.
const shellMeta = ";|&$<>`"

// checkID reports an ID that cannot name a server (actor names embed it).
func checkID(file, path, id string) error {
	ok := id != ""
	for _, r := range id {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '.' || r == '_' || r == '-')
	}
	if !ok {
		return errorf(file, path, "invalid server id %q (want letters, digits, '.', '_' or '-')", id)
	}
	return nil
}

// validateEntry checks the values of the fields e sets, each on its own.
func validateEntry(file string, e *Entry) error {
	v := reflect.ValueOf(&e.Server).Elem()
	for _, name := range e.Fields {
		spec, ok := serverFields[name]
		if !ok {
			return unknownField(file, e.Path, name, fieldNames)
		}
		if msg := checkField(&e.Server, name, v.Field(spec.index)); msg != "" {
			return errorf(file, e.fieldPath(name), "%s", msg)
		}
	}
	return nil
}

// checkField returns what is wrong with the field name of s, whose value is
// v, or "".
func checkField(s *Server, name string, v reflect.Value) string {
	if d, ok := v.Interface().(Duration); ok && d < 0 {
		return fmt.Sprintf("negative duration %v", time.Duration(d))
	}
	if (v.Kind() == reflect.Int || v.Kind() == reflect.Int64) && v.Int() < 0 {
		return fmt.Sprintf("must not be negative, got %d", v.Int())
	}
	switch name {
	case "command":
		return checkCommand(s.Command)
	case "diagnosticsPull":
		if s.DiagnosticsPull != "" && s.DiagnosticsPull != PullTSServer {
			return fmt.Sprintf("unknown diagnosticsPull %q (want %q, or none)", s.DiagnosticsPull, PullTSServer)
		}
	case "openTargets":
		if s.OpenTargets > MaxOpenTargets {
			return fmt.Sprintf("openTargets %d is more than %d", s.OpenTargets, MaxOpenTargets)
		}
	case "readyLog":
		if _, err := regexp.Compile(s.ReadyLog); err != nil {
			return fmt.Sprintf("readyLog is not a regular expression: %v", err)
		}
	case "loadError":
		if _, err := regexp.Compile(s.LoadError); err != nil {
			return fmt.Sprintf("loadError is not a regular expression: %v", err)
		}
	case "loadStart":
		if _, err := regexp.Compile(s.LoadStart); err != nil {
			return fmt.Sprintf("loadStart is not a regular expression: %v", err)
		}
	case "openImporters":
		if s.OpenImporters > MaxOpenTargets {
			return fmt.Sprintf("openImporters %d is more than %d", s.OpenImporters, MaxOpenTargets)
		}
	case "openChanged":
		if s.OpenChanged > MaxOpenTargets {
			return fmt.Sprintf("openChanged %d is more than %d", s.OpenChanged, MaxOpenTargets)
		}
	case "transport":
		if !slices.Contains([]string{"", TransportStdio, TransportTCP, TransportUnix}, s.Transport) {
			return fmt.Sprintf("unknown transport %q (want stdio, tcp or unix)", s.Transport)
		}
	case "extensions":
		return checkNames(s.Extensions, checkExtension)
	case "filenames":
		return checkNames(s.Filenames, checkFilename)
	case "rootMarkers":
		return checkMarkers(s.RootMarkers)
	case "excludeMarkers":
		return checkMarkers(s.ExcludeMarkers)
	case "configFiles":
		return checkConfigFiles(s.ConfigFiles)
	case "env":
		return checkEnv(s.Env)
	case "root":
		if s.Root != "" && !filepath.IsLocal(s.Root) {
			return fmt.Sprintf("root %q must be a path inside the workspace, relative to it", s.Root)
		}
	}
	return ""
}

// checkCommand rejects what would only work through a shell. Spaces are
// allowed only in an absolute path none of whose later words looks like an
// option ("/opt/my tools/clangd", not "/usr/bin/clangd --log=verbose").
func checkCommand(cmd string) string {
	if cmd == "" {
		return "empty command"
	}
	if i := strings.IndexAny(cmd, shellMeta); i >= 0 {
		return fmt.Sprintf("command %q contains the shell metacharacter %q; commands are never run through a shell",
			cmd, cmd[i])
	}
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return "empty command"
	}
	if len(words) == 1 && words[0] == cmd {
		return ""
	}
	if filepath.IsAbs(cmd) && !slices.ContainsFunc(words[1:], func(w string) bool { return strings.HasPrefix(w, "-") }) {
		return ""
	}
	args, _ := json.Marshal(words[1:])
	return fmt.Sprintf(`command %q contains spaces; commands are never run through a shell: write "command": %q, "args": %s`,
		cmd, words[0], args)
}

// checkNames checks the keys (by check) and values (languageIds) of m, a
// map matched without regard to case.
func checkNames(m map[string]string, check func(string) string) string {
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if msg := check(k); msg != "" {
			return msg
		}
		if m[k] == "" {
			return fmt.Sprintf("%q has an empty languageId", k)
		}
		if prev, ok := seen[strings.ToLower(k)]; ok {
			return fmt.Sprintf("%q and %q differ only in case (they are matched without regard to case)", prev, k)
		}
		seen[strings.ToLower(k)] = k
	}
	return ""
}

func checkExtension(ext string) string {
	if !strings.HasPrefix(ext, ".") {
		return fmt.Sprintf("extension %q must start with a dot: %q", ext, "."+ext)
	}
	if len(ext) == 1 || strings.ContainsAny(ext[1:], `./\ `) {
		return fmt.Sprintf(`invalid extension %q (want a dot and a name without dots, slashes or spaces, such as ".ts")`, ext)
	}
	return ""
}

func checkFilename(name string) string {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return fmt.Sprintf(`invalid file name %q (want a base name such as "Dockerfile")`, name)
	}
	return ""
}

// checkMarkers accepts file names and filepath.Match patterns ("*.csproj").
func checkMarkers(markers []string) string {
	for _, m := range markers {
		if m == "" || strings.ContainsAny(m, `/\`) {
			return fmt.Sprintf("invalid marker %q (want a file name, not a path)", m)
		}
		if _, err := filepath.Match(m, ""); err != nil {
			return fmt.Sprintf("invalid marker %q: %v", m, err)
		}
	}
	return ""
}

// checkConfigFiles accepts LSP glob patterns of local slash-separated
// paths ("pyproject.toml", "**/tsconfig.json").
func checkConfigFiles(files []string) string {
	for _, f := range files {
		if f == "" || strings.Contains(f, `\`) || !filepath.IsLocal(filepath.FromSlash(f)) {
			return fmt.Sprintf("invalid config file %q (want a path relative to the project root, with slashes)", f)
		}
		if _, err := lspglob.CompileGlob(f); err != nil {
			return fmt.Sprintf("invalid config file %q: %v", f, err)
		}
	}
	return ""
}

func checkEnv(env map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Sprintf("invalid environment variable name %q", k)
		}
	}
	return ""
}

// checkMerged checks the effective server s that entry e produced: what a
// server needs as a whole, which no single field can tell.
func checkMerged(file string, e *Entry, s *Server, builtin bool) error {
	socket := s.Effective().Transport != TransportStdio
	switch {
	case !builtin && s.Command == "" && !socket:
		return errorf(file, e.fieldPath("command"), "missing: a server that is not built in needs a command")
	case !builtin && len(s.Extensions) == 0 && len(s.Filenames) == 0:
		return errorf(file, e.fieldPath("extensions"),
			"missing: a server that is not built in needs extensions (or filenames)")
	case socket && s.Address == "":
		return errorf(file, e.fieldPath("address"), "missing: transport %q needs an address", s.Transport)
	case !socket && s.Address != "":
		return errorf(file, e.fieldPath("address"), `an address needs transport "tcp" or "unix"`)
	}
	return nil
}
