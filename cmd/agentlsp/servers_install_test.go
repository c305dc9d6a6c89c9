package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeNPM installs name@version packages as npm would, with one command
// per package named after it, and logs its calls to $FAKE_LOG.
const fakeNPM = `#!/bin/sh
PATH=/usr/bin:/bin
echo "npm $*" >> "$FAKE_LOG"
prefix=
for a in "$@"; do
  case "$a" in
    --prefix) next=prefix ;;
    -*) ;;
    *) if [ "$next" = prefix ]; then prefix="$a"; next=; continue; fi
       name="${a%@*}"
       mkdir -p "$prefix/node_modules/$name" "$prefix/node_modules/.bin"
       printf '{"version": "%s"}\n' "${a##*@}" > "$prefix/node_modules/$name/package.json"
       printf '#!/bin/sh\n' > "$prefix/node_modules/.bin/$name"
       chmod +x "$prefix/node_modules/.bin/$name" ;;
  esac
done
`

func TestServersInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	bin, cache := t.TempDir(), t.TempDir()
	writeFile(t, bin, "npm", fakeNPM)
	if err := os.Chmod(filepath.Join(bin, "npm"), 0o755); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("FAKE_LOG", logFile)
	t.Setenv("PATH", bin) // no apt-get, no clangd
	t.Setenv("AGENTLSP_CACHE", cache)
	npmBin := filepath.Join(cache, "npm", "node_modules", ".bin")

	args := []string{"servers", "--install", "yaml-language-server", "clangd"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	if want := "yaml-language-server 1.25.0: installed: " + filepath.Join(npmBin, "yaml-language-server") + "\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	for _, w := range []string{"agentlsp servers: installing yaml-language-server into", "agentlsp: clangd: install clangd with your system's package manager (on Debian and Ubuntu: apt-get install clangd)"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr = %q, want %q", stderr, w)
		}
	}

	args = []string{"servers", "--install", "yaml-language-server"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if !strings.HasPrefix(stdout, "yaml-language-server 1.25.0: already installed: ") || stderr != "" {
		t.Errorf("second install: stdout %q, stderr %q; want already installed and no progress", stdout, stderr)
	}
	if b, _ := os.ReadFile(logFile); strings.Count(string(b), "npm install") != 1 {
		t.Errorf("npm calls:\n%s\nwant one install", b)
	}
}

func TestServersInstallUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "--install"}, "--install needs the servers to install: any of bash-language-server, clangd, gopls"},
		{[]string{"servers", "--install", "zls"}, `no install recipe for "zls": want one of`},
		{[]string{"servers", "--install", "--json", "gopls"}, "--install takes no --json or --probe"},
	} {
		stdout, stderr, code := cli(t, tt.args...)
		wantExit(t, tt.args, code, exitUsage, stdout, stderr)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("agentlsp %s: stderr = %q, want %q", strings.Join(tt.args, " "), stderr, tt.want)
		}
	}
}
