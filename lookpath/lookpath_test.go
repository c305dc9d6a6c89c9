package lookpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes (the fake rustup's); see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// reset forgets every answer.
func (c *cache) reset() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}

func executable(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestLookSkipsAProxyWithoutItsComponent(t *testing.T) {
	cargo, system := t.TempDir(), t.TempDir()
	testenv.FakeRustup(t, cargo) // no component
	if err := os.Symlink("rustup", filepath.Join(cargo, "rust-analyzer")); err != nil {
		t.Fatal(err)
	}
	whichCache.reset()

	t.Setenv("PATH", cargo)
	_, err := Look("rust-analyzer")
	var pe *ProxyError
	if !errors.As(err, &pe) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("Look = %v, want a *ProxyError that is exec.ErrNotFound", err)
	}
	for _, want := range []string{filepath.Join(cargo, "rust-analyzer"), "unknown binary 'rust-analyzer'", "rustup component add rust-analyzer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "Stack backtrace") {
		t.Errorf("error %q quotes more than rustup's first line", err)
	}

	// A rust-analyzer further on PATH (the system's packages) is found.
	executable(t, filepath.Join(system, "rust-analyzer"))
	t.Setenv("PATH", cargo+string(filepath.ListSeparator)+system)
	if p, err := Look("rust-analyzer"); err != nil || p != filepath.Join(system, "rust-analyzer") {
		t.Errorf("Look = %q, %v, want the system's", p, err)
	}

	// Other commands are untouched, rustup itself included.
	executable(t, filepath.Join(system, "gopls"))
	if p, err := Look("gopls"); err != nil || p != filepath.Join(system, "gopls") {
		t.Errorf("Look(gopls) = %q, %v", p, err)
	}
	if p, err := Look("rustup"); err != nil || p != filepath.Join(cargo, "rustup") {
		t.Errorf("Look(rustup) = %q, %v", p, err)
	}
	// A path naming the proxy is checked too.
	if _, err := Look(filepath.Join(cargo, "rust-analyzer")); !errors.As(err, &pe) {
		t.Errorf("Look(the proxy's path) = %v, want a *ProxyError", err)
	}
	if _, err := Look("no-such-server"); !errors.Is(err, exec.ErrNotFound) || errors.As(err, &pe) {
		t.Errorf("Look(no-such-server) = %v, want exec.ErrNotFound", err)
	}
}

func TestLookTakesAProxyWithItsComponent(t *testing.T) {
	cargo := t.TempDir()
	testenv.FakeRustup(t, cargo, "rust-analyzer")
	// rustup also installs its proxies as hard links.
	if err := os.Link(filepath.Join(cargo, "rustup"), filepath.Join(cargo, "rust-analyzer")); err != nil {
		t.Fatal(err)
	}
	whichCache.reset()
	t.Setenv("PATH", cargo)
	if p, err := Look("rust-analyzer"); err != nil || p != filepath.Join(cargo, "rust-analyzer") {
		t.Errorf("Look = %q, %v, want the proxy: its toolchain has the component", p, err)
	}

	// Without the component, the hard link is a proxy without it too.
	other := t.TempDir()
	testenv.FakeRustup(t, other)
	if err := os.Link(filepath.Join(other, "rustup"), filepath.Join(other, "rls")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", other)
	var pe *ProxyError
	if _, err := Look("rls"); !errors.As(err, &pe) {
		t.Errorf("Look(rls) = %v, want a *ProxyError", err)
	}
}
