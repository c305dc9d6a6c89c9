package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp/config"
)

// fakeEnv re-executes this binary as the fake language server. It is the
// marker test/testenv uses too, so the harness's test binary, whose
// TestMain is testenv.Main, serves the fake the same way.
const fakeEnv = "AGENTLSP_TESTENV_FAKELSP"

// serverSpec is the language server of a scenario, as the runtime's
// configuration and as the direct clients start it.
type serverSpec struct {
	def        *config.Server
	languageID string
	// push: the server only pushes diagnostics, so a wait for them ends
	// with the settle window (a policy cost, not work).
	push bool
}

// fakeSpec is the fake server in one variant: "push" (versioned pushes)
// or "pull" (pull diagnostics only: --pull --no-push).
func fakeSpec(variant string, pushDelay time.Duration) (serverSpec, error) {
	exe, err := os.Executable()
	if err != nil {
		return serverSpec{}, err
	}
	var args []string
	switch variant {
	case "push":
	case "pull":
		args = append(args, "--pull", "--no-push")
	default:
		return serverSpec{}, errors.New("loadharness: --variants: want push or pull, got " + variant)
	}
	if pushDelay > 0 {
		args = append(args, "--push-delay", pushDelay.String())
	}
	return serverSpec{
		def: &config.Server{
			ID: "fake", Command: exe, Args: args, Env: map[string]string{fakeEnv: "1"},
			Extensions: map[string]string{fakeExt: "fake"}, RootMarkers: []string{fakeMarker},
		},
		languageID: "fake", push: variant == "push",
	}, nil
}

// goplsSpec is the built-in gopls definition with its binary found in
// path (a --gopls flag), the agentlsp server cache, or PATH.
func goplsSpec(path string) (serverSpec, error) {
	def, ok := config.Builtins()["gopls"]
	if !ok {
		return serverSpec{}, errors.New("loadharness: no built-in gopls definition")
	}
	def = def.Clone()
	if path == "" {
		path = findBinary("gopls")
	}
	if path == "" {
		return serverSpec{}, errors.New("loadharness: gopls not found: run scripts/install-servers.sh gopls, or pass --gopls PATH")
	}
	def.Command = path
	return serverSpec{def: def, languageID: "go", push: true}, nil
}

// findBinary looks for name where agentlsp installs servers, then in PATH.
func findBinary(name string) string {
	for _, dir := range config.DefaultServerPath() {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	p, _ := exec.LookPath(name)
	return p
}

// envList renders the definition's environment as KEY=VALUE entries.
func (s serverSpec) envList() []string {
	var out []string
	for k, v := range s.def.Env {
		out = append(out, k+"="+v)
	}
	return out
}
