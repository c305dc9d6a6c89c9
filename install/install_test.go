package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// The fake tools append their command line (and what matters of their
// environment) to $FAKE_LOG and create what the real ones would.
const (
	fakeNPM = `#!/bin/sh
PATH=/usr/bin:/bin
echo "npm $*" >> "$FAKE_LOG"
prefix=
pkgs=
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    -*) shift ;;
    *) pkgs="$pkgs $1"; shift ;;
  esac
done
mkdir -p "$prefix/node_modules/.bin"
for p in $pkgs; do
  name="${p%@*}"
  mkdir -p "$prefix/node_modules/$name"
  printf '{"name": "%s", "version": "%s"}\n' "$name" "${p##*@}" > "$prefix/node_modules/$name/package.json"
done
for b in $FAKE_BINS; do
  printf '#!/bin/sh\n' > "$prefix/node_modules/.bin/$b"
  chmod +x "$prefix/node_modules/.bin/$b"
done
`
	fakeGo = `#!/bin/sh
PATH=/usr/bin:/bin
echo "go $* GOBIN=$GOBIN GOFLAGS=$GOFLAGS dir=$(pwd)" >> "$FAKE_LOG"
printf '#!/bin/sh\n' > "$GOBIN/gopls"
chmod +x "$GOBIN/gopls"
`
	fakeAptGet = `#!/bin/sh
PATH=/usr/bin:/bin
echo "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> "$FAKE_LOG"
if [ "$1" = install ]; then
  printf '#!/bin/sh\n' > "$(dirname "$0")/clangd"
  chmod +x "$(dirname "$0")/clangd"
fi
`
)

// fakeTools puts the named fake tools alone on PATH and returns the file
// their calls are logged to.
func fakeTools(t *testing.T, tools map[string]string) (bin, logFile string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake tools are shell scripts")
	}
	bin = t.TempDir()
	for name, script := range tools {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logFile = filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("FAKE_LOG", logFile)
	t.Setenv("PATH", bin)
	return bin, logFile
}

func calls(t *testing.T, logFile string) []string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func lookup(t *testing.T, name string) Recipe {
	t.Helper()
	r, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"gopls": "gopls", "typescript": "typescript-language-server", "vscode-langservers-extracted": "vscode-json-language-server",
	} {
		if r, err := Lookup(name); err != nil || r.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, r.Name, err, want)
		}
	}
	_, err := Lookup("zls")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "gopls, pylsp, pyright") {
		t.Errorf("Lookup(zls) = %v, want ErrUnknown listing the names", err)
	}
	r := lookup(t, "pyright")
	r.Packages[0] = "changed"
	if lookup(t, "pyright").Packages[0] != "pyright@1.1.414" {
		t.Error("Lookup returned a recipe shared with its caller")
	}
}

// Every recipe installs a built-in server's command, and every built-in's
// install hint is the command that runs its recipe.
func TestRecipesMatchBuiltins(t *testing.T) {
	builtins := config.Builtins()
	for _, name := range Names() {
		r := lookup(t, name)
		s, ok := builtins[name]
		if !ok {
			t.Errorf("recipe %s is not a built-in server", name)
			continue
		}
		if !slices.Contains(r.Commands, s.Command) {
			t.Errorf("recipe %s installs %v, not the built-in's command %s", name, r.Commands, s.Command)
		}
		if want := "agentlsp servers --install " + name; s.InstallHint != want {
			t.Errorf("built-in %s: install hint %q, want %q", name, s.InstallHint, want)
		}
	}
}

func TestNPMInstallAndIdempotence(t *testing.T) {
	_, logFile := fakeTools(t, map[string]string{"npm": fakeNPM})
	t.Setenv("FAKE_BINS", "typescript-language-server")
	cache := t.TempDir()
	var log bytes.Buffer
	in := &Installer{Cache: cache, Log: &log}
	r := lookup(t, "typescript")
	res, err := in.Install(context.Background(), r)
	npmDir := filepath.Join(cache, "npm")
	wantPath := filepath.Join(npmDir, "node_modules", ".bin", "typescript-language-server")
	if err != nil || res.Already || res.Path != wantPath {
		t.Fatalf("Install = %+v, %v; want installed at %s", res, err, wantPath)
	}
	want := []string{"npm install --prefix " + npmDir + " --no-audit --no-fund --loglevel=error typescript-language-server@5.3.0 typescript@5.9.3"}
	if d := cmp.Diff(want, calls(t, logFile)); d != "" {
		t.Errorf("npm calls (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(filepath.Join(npmDir, "package.json")); err != nil || string(b) != "{\"private\":true}\n" {
		t.Errorf("package.json = %q, %v; want a private package", b, err)
	}
	if !strings.Contains(log.String(), "installing typescript-language-server into "+npmDir) {
		t.Errorf("progress = %q, want what is installed where", log.String())
	}

	res, err = in.Install(context.Background(), r)
	if err != nil || !res.Already || res.Path != wantPath {
		t.Errorf("second Install = %+v, %v; want already installed", res, err)
	}
	if got := calls(t, logFile); len(got) != 1 {
		t.Errorf("second Install ran npm again: %q", got)
	}

	// Another version of one package is not the pinned one.
	meta := filepath.Join(npmDir, "node_modules", "typescript", "package.json")
	if err := os.WriteFile(meta, []byte(`{"version": "5.8.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := in.Installed(r); ok {
		t.Error("Installed with typescript 5.8.0, want not installed")
	}
	if res, err = in.Install(context.Background(), r); err != nil || res.Already || len(calls(t, logFile)) != 2 {
		t.Errorf("Install over another version = %+v, %v, calls %q; want npm run again", res, err, calls(t, logFile))
	}
}

func TestGoInstall(t *testing.T) {
	_, logFile := fakeTools(t, map[string]string{"go": fakeGo})
	t.Setenv("GOFLAGS", "-mod=mod")
	cache := t.TempDir()
	in := &Installer{Cache: cache}
	res, err := in.Install(context.Background(), lookup(t, "gopls"))
	bin := filepath.Join(cache, "bin")
	if err != nil || res.Already || res.Path != filepath.Join(bin, "gopls") {
		t.Fatalf("Install = %+v, %v; want installed in %s", res, err, bin)
	}
	want := []string{"go install golang.org/x/tools/gopls@v0.23.0 GOBIN=" + bin + " GOFLAGS=-mod=mod -buildvcs=false dir=" + cache}
	if d := cmp.Diff(want, calls(t, logFile)); d != "" {
		t.Errorf("go calls (-want +got):\n%s", d)
	}
	// A binary that is not gopls v0.23.0 (here a script) is rebuilt.
	if _, err := in.Install(context.Background(), lookup(t, "gopls")); err != nil || len(calls(t, logFile)) != 2 {
		t.Errorf("Install over a foreign binary: %v, calls %q; want go install again", err, calls(t, logFile))
	}
}

// The gopls that scripts/test.sh installs is recognized as v0.23.0.
func TestGoInstallIdempotent(t *testing.T) {
	gopls := testenv.ServerBinary(t, "gopls")
	_, logFile := fakeTools(t, map[string]string{"go": fakeGo})
	cache := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cache, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gopls, filepath.Join(cache, "bin", "gopls")); err != nil {
		t.Fatal(err)
	}
	in := &Installer{Cache: cache}
	res, err := in.Install(context.Background(), lookup(t, "gopls"))
	if err != nil || !res.Already {
		t.Errorf("Install with gopls v0.23.0 in the cache = %+v, %v; want already installed", res, err)
	}
	if got := calls(t, logFile); got != nil {
		t.Errorf("Install ran %q, want nothing", got)
	}
}

func TestSystemInstall(t *testing.T) {
	bin, logFile := fakeTools(t, map[string]string{"apt-get": fakeAptGet})
	in := &Installer{Cache: t.TempDir()}
	_, err := in.Install(context.Background(), lookup(t, "clangd"))
	if !errors.Is(err, ErrNeedsRoot) || !strings.Contains(err.Error(), "run 'sudo apt-get install -y clangd'") {
		t.Errorf("Install as a user = %v, want ErrNeedsRoot with the command to run", err)
	}
	if got := calls(t, logFile); got != nil {
		t.Errorf("Install as a user ran %q", got)
	}

	in.Root = true
	res, err := in.Install(context.Background(), lookup(t, "clangd"))
	if err != nil || res.Already || res.Path != filepath.Join(bin, "clangd") {
		t.Fatalf("Install as root = %+v, %v; want clangd installed", res, err)
	}
	want := []string{"apt-get update -qq DEBIAN_FRONTEND=noninteractive", "apt-get install -y -qq clangd DEBIAN_FRONTEND=noninteractive"}
	if d := cmp.Diff(want, calls(t, logFile)); d != "" {
		t.Errorf("apt-get calls (-want +got):\n%s", d)
	}
	if res, err = in.Install(context.Background(), lookup(t, "clangd")); err != nil || !res.Already || len(calls(t, logFile)) != 2 {
		t.Errorf("second Install = %+v, %v; want already installed, nothing run", res, err)
	}
}

func TestMissingTools(t *testing.T) {
	fakeTools(t, nil)
	in := &Installer{Cache: t.TempDir(), Root: true}
	for name, want := range map[string]error{"pyright": ErrMissingTool, "gopls": ErrMissingTool, "pylsp": ErrNoPackageManager} {
		_, err := in.Install(context.Background(), lookup(t, name))
		if !errors.Is(err, want) {
			t.Errorf("Install(%s) without its tool = %v, want %v", name, err, want)
		}
	}
}

func TestBashNote(t *testing.T) {
	fakeTools(t, map[string]string{"npm": fakeNPM})
	t.Setenv("FAKE_BINS", "bash-language-server")
	res, err := (&Installer{Cache: t.TempDir()}).Install(context.Background(), lookup(t, "bash-language-server"))
	if err != nil || !strings.Contains(res.Note, "shellcheck") {
		t.Errorf("Install(bash-language-server) without shellcheck = %+v, %v; want a note about shellcheck", res, err)
	}
}

func TestPinned(t *testing.T) {
	for name, want := range map[string]string{
		"gopls": "v0.23.0", "pyright": "1.1.414", "typescript": "5.3.0 with typescript@5.9.3",
		"vscode-css-language-server": "vscode-langservers-extracted@4.10.0", "clangd": "(system package)",
	} {
		if got := lookup(t, name).Pinned(); got != want {
			t.Errorf("Lookup(%s).Pinned() = %q, want %q", name, got, want)
		}
	}
}
