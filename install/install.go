package install

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/lookpath"
)

// CacheDir is agentlsp's cache: $AGENTLSP_CACHE, or ~/.cache/agentlsp.
func CacheDir() string {
	if dir := os.Getenv("AGENTLSP_CACHE"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agentlsp")
}

// Installer installs recipes. It is not safe for concurrent use: two
// installs into one cache at once would race in npm.
type Installer struct {
	Cache string    // agentlsp's cache directory, see CacheDir
	Root  bool      // whether the system package manager may run
	Log   io.Writer // progress lines and the tools' output; nil: discarded
}

// Result is what Install did.
type Result struct {
	Recipe  Recipe
	Path    string // where the server's command is
	Already bool   // it was installed at the pinned version: nothing ran
	Note    string // what else the server needs, if it is missing
}

// Install installs r unless its pinned version is installed already. It
// blocks until the tools it runs have exited; cancelling ctx kills them.
func (in *Installer) Install(ctx context.Context, r Recipe) (Result, error) {
	res := Result{Recipe: r}
	if path, ok := in.Installed(r); ok {
		res.Path, res.Already = path, true
		return in.withNote(res), nil
	}
	var err error
	switch r.Method {
	case GoInstall:
		err = in.goInstall(ctx, r)
	case NPM:
		err = in.npmInstall(ctx, r)
	default:
		err = in.systemInstall(ctx, r)
	}
	if err != nil {
		return res, err
	}
	path, ok := in.commandPath(r)
	if !ok {
		return res, fmt.Errorf("%w: %s: the install ran but %s is not there", ErrNotInstalled, r.Name, r.Commands[0])
	}
	res.Path = path
	return in.withNote(res), nil
}

// withNote adds the note about a missing companion command.
func (in *Installer) withNote(res Result) Result {
	if c := res.Recipe.Companion; c != "" {
		if _, err := exec.LookPath(c); err != nil {
			res.Note = res.Recipe.CompanionNote
		}
	}
	return res
}

// Installed reports whether r's pinned version is installed, and where
// its command is: for go install, a binary built from the pinned module
// version; for npm, every package at its pinned version; for system
// packages, the commands on PATH (their version is the platform's).
func (in *Installer) Installed(r Recipe) (string, bool) {
	path, ok := in.commandPath(r)
	if !ok {
		return "", false
	}
	switch r.Method {
	case GoInstall:
		ok = goBinaryIs(path, r.Module, r.Version)
	case NPM:
		ok = npmHas(in.npmDir(), r.Packages)
	}
	return path, ok
}

// commandPath is where r's commands are, if they all are: in the cache
// for go install and npm, on PATH for system packages.
func (in *Installer) commandPath(r Recipe) (string, bool) {
	var first string
	for _, c := range r.Commands {
		var p string
		switch r.Method {
		case GoInstall:
			p = findExecutable(filepath.Join(in.Cache, "bin", c))
		case NPM:
			p = findExecutable(filepath.Join(in.npmDir(), "node_modules", ".bin", c))
		default:
			p, _ = lookpath.Look(c)
		}
		if p == "" {
			return "", false
		}
		if first == "" {
			first = p
		}
	}
	return first, true
}

// findExecutable is p if it is an executable file (on Windows, also
// p.exe or p.cmd), or "".
func findExecutable(p string) string {
	candidates := []string{p}
	if runtime.GOOS == "windows" {
		candidates = append(candidates, p+".exe", p+".cmd")
	}
	for _, c := range candidates {
		fi, err := os.Stat(c)
		if err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return c
		}
	}
	return ""
}

// goBinaryIs reports whether the Go binary at path was built from module
// at version.
func goBinaryIs(path, module, version string) bool {
	bi, err := buildinfo.ReadFile(path)
	return err == nil && (bi.Path == module || bi.Main.Path == module) && bi.Main.Version == version
}

func (in *Installer) npmDir() string { return filepath.Join(in.Cache, "npm") }

// npmHas reports whether every package (name@version) is installed under
// dir at its version.
func npmHas(dir string, packages []string) bool {
	for _, p := range packages {
		name, version := splitPackage(p)
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
		if err != nil {
			return false
		}
		var meta struct{ Version string }
		if json.Unmarshal(b, &meta) != nil || meta.Version != version {
			return false
		}
	}
	return true
}

// splitPackage splits name@version (the name may be @scope/name).
func splitPackage(p string) (name, version string) {
	i := strings.LastIndexByte(p, '@')
	if i <= 0 {
		return p, ""
	}
	return p[:i], p[i+1:]
}

// goInstall runs go install with GOBIN in the cache.
func (in *Installer) goInstall(ctx context.Context, r Recipe) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("%w: %s is built with the go command, which is not on PATH: install Go from https://go.dev/dl", ErrMissingTool, r.Name)
	}
	bin := filepath.Join(in.Cache, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	target := r.Module + "@" + r.Version
	in.logf("installing %s %s into %s: go install %s (a minute or two the first time)", r.Name, r.Version, bin, target)
	goflags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -buildvcs=false")
	return in.run(ctx, in.Cache, []string{"GOBIN=" + bin, "GOFLAGS=" + goflags}, goTool, "install", target)
}

// npmInstall runs npm install in the cache's npm directory.
func (in *Installer) npmInstall(ctx context.Context, r Recipe) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("%w: %s is installed with npm, which is not on PATH: install Node.js 20 or later (Debian: apt-get install nodejs npm)", ErrMissingTool, r.Name)
	}
	dir := in.npmDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	manifest := filepath.Join(dir, "package.json")
	if _, err := os.Stat(manifest); os.IsNotExist(err) {
		if err := os.WriteFile(manifest, []byte(`{"private":true}`+"\n"), 0o644); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	in.logf("installing %s into %s: npm install %s", r.Name, dir, strings.Join(r.Packages, " "))
	args := append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}, r.Packages...)
	return in.run(ctx, dir, nil, npm, args...)
}

// systemInstall runs the platform's package manager, as root.
func (in *Installer) systemInstall(ctx context.Context, r Recipe) error {
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		return fmt.Errorf("%w: install %s with your system's package manager (on Debian and Ubuntu: apt-get install %s)",
			ErrNoPackageManager, r.Name, strings.Join(r.Packages, " "))
	}
	command := "apt-get install -y " + strings.Join(r.Packages, " ")
	if !in.Root {
		return fmt.Errorf("%w: %s is installed with apt-get: run 'sudo %s'", ErrNeedsRoot, r.Name, command)
	}
	in.logf("installing %s: %s", r.Name, command)
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := in.run(ctx, "", env, apt, "update", "-qq"); err != nil {
		return err
	}
	return in.run(ctx, "", env, apt, append([]string{"install", "-y", "-qq"}, r.Packages...)...)
}

// run runs a tool with env added to the environment, its output going to
// the log, and waits for it.
func (in *Installer) run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = in.log(), in.log()
	cmd.WaitDelay = 5 * time.Second // after ctx ends, for output pipes held by grandchildren
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("install: %s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
	}
	return nil
}

func (in *Installer) log() io.Writer {
	if in.Log == nil {
		return io.Discard
	}
	return in.Log
}

func (in *Installer) logf(format string, args ...any) {
	fmt.Fprintf(in.log(), "agentlsp servers: "+format+"\n", args...)
}

// IsRoot reports whether this process may run the system package manager
// (effective user root; never on Windows).
func IsRoot() bool { return os.Geteuid() == 0 }
