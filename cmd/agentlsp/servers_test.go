package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// tableRow returns the fields of the table line of server id.
func tableRow(t *testing.T, table, id string) string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, id+" ") {
			return strings.Join(strings.Fields(line), " ")
		}
	}
	t.Fatalf("no row for %s in:\n%s", id, table)
	return ""
}

func TestServersListsInstalledServers(t *testing.T) {
	gopls := testenv.ServerBinary(t, "gopls")
	ws := t.TempDir()
	cfg := writeFile(t, t.TempDir(), "agentlsp.json", `{"servers": {
		"pyright": {"disabled": true},
		"zls": {"command": "no-such-zls", "extensions": {".zig": "zig"}, "installHint": "get zls"}}}`)
	args := []string{"servers", "--workspace", ws, "--config", cfg}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if !strings.HasPrefix(stdout, "SERVER ") || stderr != "" {
		t.Errorf("stdout:\n%s\nstderr %q, want a table and no stderr", stdout, stderr)
	}
	for id, want := range map[string]string{
		"gopls":   "gopls yes " + gopls + " not started",
		"pyright": "pyright no " + testenv.ServerBinary(t, "pyright-langserver") + " -",
		"zls":     "zls yes not installed: get zls not started",
	} {
		if row := tableRow(t, stdout, id); !strings.HasPrefix(row, want) {
			t.Errorf("row %q, want it to start with %q", row, want)
		}
	}
}

// TestServersProbeNamesACrashLoop: a server that crashes at every start
// and is restarted each time is not shown as merely starting: its state
// says why it last failed (rust-analyzer's rustup proxy without its
// component showed "starting").
func TestServersProbeNamesACrashLoop(t *testing.T) {
	// The probe waits its whole --timeout (the fake never answers). On a
	// loaded machine the fake (this race-built test binary) may not have
	// started, let alone crashed, within a short one: the row is only
	// judged once the fake has started twice, so its first crash was seen
	// before the table was made; until then, a longer probe.
	for timeout := 3 * time.Second; ; timeout *= 2 {
		row, starts := probeCrashLoop(t, timeout)
		if starts >= 2 {
			if strings.Contains(row, " running") || !strings.Contains(row, "(last failure: ") || !strings.Contains(row, "exited") {
				t.Errorf("fake row %q, want its state with its last failure (the process exited)", row)
			}
			return
		}
		if timeout >= 48*time.Second {
			t.Fatalf("the fake started %d times in a %v probe, want 2 or more (row %q)", starts, timeout, row)
		}
		t.Logf("the fake started %d times in a %v probe: probing longer", starts, timeout)
	}
}

// probeCrashLoop runs servers --probe for timeout on a fake that crashes
// on its first message, restarted each time, and returns the fake's table
// row and how many times it started (the messages it recorded: one each).
func probeCrashLoop(t *testing.T, timeout time.Duration) (row string, starts int) {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, ws, "fake.root", "")
	record := filepath.Join(t.TempDir(), "record.jsonl")
	cmd, fargs, env := testenv.FakeServer(t, "--crash-after", "1", "--record", record)
	cfg := serverConfig(t, ws, map[string]any{"command": cmd, "args": fargs, "env": env,
		"rootMarkers": []string{"fake.root"}, "restartOnCrash": true, "maxRestarts": 1000})
	args := []string{"servers", "--workspace", ws, "--config", cfg, "--probe", "--timeout", timeout.String()}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	recorded, err := os.ReadFile(record)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return tableRow(t, stdout, "fake"), strings.Count(string(recorded), "\n")
}

func TestServersProbe(t *testing.T) {
	ws := goWorkspace(t, nil)
	writeFile(t, ws, "fake.root", "")
	cfg := serverConfig(t, ws, map[string]any{"command": filepath.Join(ws, "no-such-server"),
		"rootMarkers": []string{"fake.root"}, "installHint": "build the fake"})
	args := []string{"servers", "--workspace", ws, "--config", cfg, "--probe"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if row := tableRow(t, stdout, "gopls"); !strings.HasSuffix(row, " running") {
		t.Errorf("gopls row %q, want running", row)
	}
	row := tableRow(t, stdout, "fake")
	for _, want := range []string{"fake yes not installed: build the fake broken: agentlsp: cannot start", "no-such-server", "; build the fake"} {
		if !strings.Contains(row, want) {
			t.Errorf("fake row %q lacks %q", row, want)
		}
	}

	args = append(args, "--json")
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	var doc struct{ Servers []serverJSON }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("servers --json: %v\n%s", err, stdout)
	}
	found := 0
	for _, s := range doc.Servers {
		switch s.ID {
		case "gopls":
			found++
			if !s.Installed || len(s.Instances) != 1 || s.Instances[0].State != "running" || s.Instances[0].Root != "." {
				t.Errorf("gopls = %+v, want installed and running at the workspace root", s)
			}
		case "fake":
			found++
			if s.Installed || len(s.Instances) != 1 || !s.Instances[0].Broken || !strings.Contains(s.Instances[0].Error, "no-such-server") {
				t.Errorf("fake = %+v, want not installed and broken", s)
			}
		}
	}
	if found != 2 {
		t.Errorf("servers --json lists %d of gopls and fake:\n%s", found, stdout)
	}
}

// TestRustupProxyWithoutItsComponent: rustup puts a rust-analyzer first on
// PATH whether or not the toolchain has the component; without it, the
// proxy exits at once. It is listed as not installed, with what to do, and
// a check of a Rust file says the server is broken, with the same, at
// once: it was listed installed, then started and restarted until its
// crash budget ran out.
func TestRustupProxyWithoutItsComponent(t *testing.T) {
	cargo := t.TempDir()
	testenv.FakeRustup(t, cargo)
	if err := os.Symlink("rustup", filepath.Join(cargo, "rust-analyzer")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", cargo)
	ws := t.TempDir()
	writeFile(t, ws, "Cargo.toml", "[package]\nname = \"p\"\nversion = \"0.1.0\"\n")
	writeFile(t, ws, "src/main.rs", "fn main() {}\n")
	hint := "rustup component add rust-analyzer"

	args := []string{"servers", "--workspace", ws}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	if row := tableRow(t, stdout, "rust-analyzer"); !strings.HasPrefix(row, "rust-analyzer yes not installed: "+
		filepath.Join(cargo, "rust-analyzer")+" is rustup's proxy") || !strings.Contains(row, hint) {
		t.Errorf("row %q, want not installed, naming the proxy and %q", row, hint)
	}

	args = []string{"check", "--workspace", ws, "src/main.rs"}
	stdout, stderr, code = cli(t, args...)
	wantExit(t, args, code, exitFailure, stdout, stderr)
	// Broken at its first start, the server is refused to the call (with
	// the file's name), or, seen broken before, the answer says so.
	if !strings.Contains(stderr, "agentlsp: src/main.rs: ") || !strings.Contains(stderr, "broken: rust-analyzer") ||
		!strings.Contains(stderr, hint) || strings.Contains(stderr, "crashed") {
		t.Errorf("stderr %q, want the server broken at its start, with %q", stderr, hint)
	}
}

// TestServersTableEscapesItsText: a server's command and its failure's
// cause went into the table raw, and a command path holding an ESC or a
// bidirectional override drove the terminal; they are escaped as all
// text output is.
func TestServersTableEscapesItsText(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "fake.root", "")
	cfg := serverConfig(t, ws, map[string]any{"command": filepath.Join(ws, "no\x1b[2Jlsp\u202egnp"), "rootMarkers": []string{"fake.root"}})
	args := []string{"servers", "--workspace", ws, "--config", cfg, "--probe", "--timeout", "10s"}
	stdout, stderr, code := cli(t, args...)
	wantExit(t, args, code, exitOK, stdout, stderr)
	row := tableRow(t, stdout, "fake")
	if strings.ContainsAny(stdout, "\x1b\u202e") || !strings.Contains(row, `no\x1b[2Jlsp\u202egnp`) || !strings.Contains(row, "broken") {
		t.Errorf("fake row %q, want the command escaped and the server broken; table:\n%q", row, stdout)
	}
}
