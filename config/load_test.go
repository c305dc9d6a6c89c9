package config

import (
	"regexp"
	"testing"
)

// TestLoadPatterns: the default and built-in loadError and loadStart
// against what the servers were seen to say (agentlsp check --log-level
// debug), and what they say of projects that load.
func TestLoadPatterns(t *testing.T) {
	b := Builtins()
	defErr, defStart := regexp.MustCompile(DefaultLoadError), regexp.MustCompile(DefaultLoadStart)
	pyErr := regexp.MustCompile(b["pyright"].LoadError)
	for _, tc := range []struct {
		re      *regexp.Regexp
		message string
		want    bool
	}{
		// rust-analyzer (window/showMessage), no Cargo.toml and a broken one.
		{defErr, "Failed to discover workspace.\nConsider adding the `Cargo.toml` of the workspace to the [`linkedProjects`](https://rust-analyzer.github.io/book/configuration.html#linkedProjects) setting.\n\nFailed to load workspaces.", true},
		{defErr, "Failed to load workspaces.", true},
		// Its warning about a machine without rust-src: the crate loads.
		{defErr, "Workspace `/w/Cargo.toml` has sysroot errors: can't load standard library, try installing `rust-src`", false},
		{defStart, "Fetching", true},
		// gopls: the progress title, and its logs (a timestamp first) that
		// say the same while the progress stands for it.
		{defErr, "Error loading workspace", true},
		{defErr, "2026/11/28 16:47:47 errors loading workspace: /w/go.mod:5: syntax error", false},
		{defStart, "diagnosing opened files", false},
		// pyright (window/logMessage).
		{pyErr, `Config file "/w/pyproject.toml" could not be parsed. Verify that format is correct.`, true},
		{pyErr, `Pyproject file parse attempt 1 error: {"line":1}`, false},
		{defStart, "Loading pyproject.toml file at /w/pyproject.toml", true},
		{defErr, "Found 1 source file", false},
	} {
		if got := tc.re.MatchString(tc.message); got != tc.want {
			t.Errorf("%s matches %q = %v, want %v", tc.re, tc.message, got, tc.want)
		}
	}
}
