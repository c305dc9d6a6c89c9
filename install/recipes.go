// Package install installs the pinned versions of agentlsp's built-in
// language servers: Go servers with `go install` into the cache's bin/,
// npm servers with npm into the cache's npm/ (the directories the runtime
// searches before PATH, see agentlsp.DefaultServerPath), and the others
// with the platform's package manager.
//
// An Installer runs the tools as child processes and waits for them; it
// starts no goroutine of its own beyond those os/exec runs for a child's
// output, which end when the child is waited for.
package install

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Errors of Lookup and Install.
var (
	ErrUnknown          = errors.New("install: no install recipe")
	ErrNeedsRoot        = errors.New("install: needs root")
	ErrMissingTool      = errors.New("install: a required tool is missing")
	ErrNoPackageManager = errors.New("install: no supported package manager")
	ErrNotInstalled     = errors.New("install: still not installed")
)

// Method is how a recipe installs.
type Method int

// The install methods.
const (
	GoInstall Method = iota // go install MODULE@VERSION with GOBIN=<cache>/bin
	NPM                     // npm install --prefix <cache>/npm NAME@VERSION...
	System                  // the platform's package manager (apt-get), as root
)

// Recipe is how one built-in server is installed.
type Recipe struct {
	Name     string   // the built-in server's id
	Method   Method   //
	Module   string   // GoInstall: the main package, as go install names it
	Version  string   // GoInstall: the module version
	Packages []string // NPM: name@version; System: the Debian packages
	Commands []string // the commands it installs; the first is the server's
	// Companion is a command the server needs for part of its work, and
	// CompanionNote what to do when it is missing.
	Companion, CompanionNote string
}

// Versions of the npm servers that work with node 20 (DESIGN.md section 6).
var recipes = []Recipe{
	{Name: "gopls", Method: GoInstall, Module: "golang.org/x/tools/gopls", Version: "v0.23.0", Commands: []string{"gopls"}},
	{Name: "pyright", Method: NPM, Packages: []string{"pyright@1.1.414"}, Commands: []string{"pyright-langserver"}},
	{Name: "typescript-language-server", Method: NPM,
		Packages: []string{"typescript-language-server@5.3.0", "typescript@5.9.3"}, Commands: []string{"typescript-language-server"}},
	{Name: "bash-language-server", Method: NPM, Packages: []string{"bash-language-server@5.8.1"}, Commands: []string{"bash-language-server"},
		Companion: "shellcheck", CompanionNote: "bash-language-server reports diagnostics only through shellcheck: apt-get install shellcheck"},
	{Name: "yaml-language-server", Method: NPM, Packages: []string{"yaml-language-server@1.25.0"}, Commands: []string{"yaml-language-server"}},
	extracted("vscode-json-language-server"),
	extracted("vscode-css-language-server"),
	extracted("vscode-html-language-server"),
	{Name: "clangd", Method: System, Packages: []string{"clangd"}, Commands: []string{"clangd"}},
	// Debian 12 ships rust-analyzer in rust-web-analyzer.
	{Name: "rust-analyzer", Method: System, Packages: []string{"rust-web-analyzer"}, Commands: []string{"rust-analyzer"}},
	// pylsp reports nothing without pyflakes.
	{Name: "pylsp", Method: System, Packages: []string{"python3-pylsp", "python3-pyflakes", "python3-pycodestyle"}, Commands: []string{"pylsp"}},
}

func extracted(id string) Recipe {
	return Recipe{Name: id, Method: NPM, Packages: []string{"vscode-langservers-extracted@4.10.0"}, Commands: []string{id}}
}

// aliases are other names Lookup accepts.
var aliases = map[string]string{
	"typescript":                   "typescript-language-server",
	"vscode-langservers-extracted": "vscode-json-language-server",
}

// Names are the names of the servers that have a recipe, sorted.
func Names() []string {
	names := make([]string, len(recipes))
	for i, r := range recipes {
		names[i] = r.Name
	}
	slices.Sort(names)
	return names
}

// Lookup returns the recipe of a built-in server by its id (or an alias:
// typescript, vscode-langservers-extracted). The recipe is a copy the
// caller owns.
func Lookup(name string) (Recipe, error) {
	if id, ok := aliases[name]; ok {
		name = id
	}
	for _, r := range recipes {
		if r.Name == name {
			r.Packages = slices.Clone(r.Packages)
			r.Commands = slices.Clone(r.Commands)
			return r, nil
		}
	}
	return Recipe{}, fmt.Errorf("%w for %q: want one of %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Pinned is the version a recipe installs, for people: "v0.23.0",
// "5.3.0 with typescript@5.9.3", "(system package)".
func (r Recipe) Pinned() string {
	switch r.Method {
	case GoInstall:
		return r.Version
	case NPM:
		var own string
		var others []string
		for _, p := range r.Packages {
			if name, version := splitPackage(p); name == r.Name {
				own = version
			} else {
				others = append(others, p)
			}
		}
		if own == "" {
			return strings.Join(others, " ")
		}
		if len(others) == 0 {
			return own
		}
		return own + " with " + strings.Join(others, " ")
	}
	return "(system package)"
}
