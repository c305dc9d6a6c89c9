package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// FakeRustup writes into dir a rustup that answers `rustup which NAME`
// as rustup does: the binary's path for the names in has, else "error:
// unknown binary" on stderr and exit status 1. Links to it named after a
// component are its proxies (lookpath).
func FakeRustup(t testing.TB, dir string, has ...string) string {
	t.Helper()
	script := "#!/bin/sh\nif [ \"$1\" = which ]; then\n  case \"$2\" in\n"
	for _, h := range has {
		script += "    " + h + ") echo /toolchain/bin/" + h + "; exit 0;;\n"
	}
	script += "  esac\n  echo \"error: unknown binary '$2' in toolchain 'stable-x86_64-unknown-linux-gnu'\" >&2\n" +
		"  echo \"\" >&2\n  echo \"Stack backtrace:\" >&2\n  exit 1\nfi\n" +
		"echo \"error: Unknown binary '${0##*/}' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\" >&2\nexit 1\n"
	p := filepath.Join(dir, "rustup")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
