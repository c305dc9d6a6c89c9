package fresh

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// Changes to a project's configuration that the servers other than
// pyright do not take in place (reviewed 2026-12-07): each answer after
// the change is compared with the server's own command line.

const (
	tsLoose  = `{"compilerOptions":{"strict":false,"target":"es2020","module":"commonjs"}}` + "\n"
	tsStrict = `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs"}}` + "\n"
)

// tsNestedFiles is a loose project whose src/a.ts has an implicit any:
// an error only under a strict tsconfig.json.
var tsNestedFiles = map[string]string{
	"package.json":  `{"name":"x","version":"1.0.0"}` + "\n",
	"tsconfig.json": tsLoose,
	"src/a.ts":      "export function f(x) { return x; }\n",
}

// TestTSConfigNearerCreatedIsFresh: a tsconfig.json created nearer to an
// open file takes it over, for tsc -p as for a newly started tsserver.
// The running tsserver kept the file in the project it was opened in
// (with its own file watching too): every answer said fresh and clean,
// for as long as it ran, though tsc found the implicit any.
func TestTSConfigNearerCreatedIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, tsNestedFiles)
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, "src/a.ts"); len(errorsOf(r)) != 0 {
		t.Fatalf("before: %v, want clean", errorsOf(r))
	}
	write(t, ws, "src/tsconfig.json", tsStrict)
	r, _ := freshDiagnostics(t, s, "src/a.ts")
	want := tscCheckProject(t, ws, "src", "src/a.ts")
	if len(want) == 0 {
		t.Fatal("tsc -p src finds nothing: the test proves nothing")
	}
	if diff := cmp.Diff(want, errorsOf(r)); diff != "" {
		t.Errorf("fresh answer and tsc -p src differ (-tsc +agentlsp):\n%s", diff)
	}
}

// TestTSConfigNearerDeletedIsFresh: a file's own tsconfig.json deleted
// gives it to the one above, for tsc as for agentlsp. The file was open
// on the server whose root was its directory (the nearest tsconfig.json)
// and stayed there: tsserver looks for a file's project no higher than
// the root, and answered from an inferred project, fresh, with an error
// tsc does not report.
func TestTSConfigNearerDeletedIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, withFiles(tsNestedFiles, map[string]string{"src/tsconfig.json": tsStrict}))
	s := start(t, ws).Session("agent")
	if r, _ := freshDiagnostics(t, s, "src/a.ts"); len(errorsOf(r)) == 0 {
		t.Fatal("before: clean, want the implicit any of the strict src/tsconfig.json")
	}
	if err := os.Remove(filepath.Join(ws, "src", "tsconfig.json")); err != nil {
		t.Fatal(err)
	}
	r, _ := freshDiagnostics(t, s, "src/a.ts")
	if diff := cmp.Diff(tscCheck(t, ws, "src/a.ts"), errorsOf(r)); diff != "" {
		t.Errorf("fresh answer and tsc -p . differ (-tsc +agentlsp):\n%s", diff)
	}
}

// cFeatureFiles is a C file that compiles only with -DFEATURE.
var cFeatureFiles = map[string]string{
	"Makefile": "all:\n",
	"a.c":      "#ifndef FEATURE\n#error FEATURE is not defined\n#endif\nint g(void) { return 1; }\n",
}

// TestClangdCompileFlagsChangeIsFresh: compile_flags.txt and
// compile_commands.json created, edited and deleted decide whether a file
// compiles, for clangd --check as for agentlsp. clangd 14 read a
// directory's flags once: every answer after a change said fresh with the
// flags it had first seen.
func TestClangdCompileFlagsChangeIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "clangd")
	ws := workspace(t, cFeatureFiles)
	s := start(t, ws).Session("agent")
	ccj := func(flags string) string {
		return `[{"directory": "` + ws + `", "file": "a.c", "command": "cc ` + flags + ` -c a.c"}]` + "\n"
	}
	broke, clean := false, false
	steps := []struct{ file, text string }{
		{"", ""}, // as it started: no flags
		{"compile_flags.txt", "-DFEATURE\n"},
		{"compile_flags.txt", "-DOTHER\n"},
		{"compile_flags.txt", "-DFEATURE\n"},
		{"compile_flags.txt", ""}, // deleted
		{"compile_commands.json", ccj("-DFEATURE")},
		{"compile_commands.json", ccj("")},
	}
	for i, step := range steps {
		switch {
		case step.file == "":
		case step.text == "":
			if err := os.Remove(filepath.Join(ws, step.file)); err != nil {
				t.Fatal(err)
			}
		default:
			write(t, ws, step.file, step.text)
		}
		r, _ := freshDiagnostics(t, s, "a.c")
		want := clangdCheck(t, ws, "a.c")
		broke, clean = broke || len(want) > 0, clean || len(want) == 0
		if diff := cmp.Diff(want, lowered(errorsOf(r))); diff != "" {
			t.Errorf("step %d (%s): fresh answer and clangd --check differ (-clangd +agentlsp):\n%s", i, step.file, diff)
		}
	}
	if !broke || !clean {
		t.Fatal("clangd --check found the file always broken or always clean: the test proves nothing")
	}
}

// clangdLine is one error of `clangd --check`: E[time] [code] Line N: message.
var clangdLine = regexp.MustCompile(`^E\[[^\]]*\] \[[^\]]*\] Line (\d+): (.*)$`)

// clangdCheck is the oracle: the errors `clangd --check` reports for a
// file, in the form of errorsOf, in lower case (lowered).
func clangdCheck(t *testing.T, ws, rel string) []string {
	t.Helper()
	cmd := exec.Command(testenv.ServerBinary(t, "clangd"), "--check="+filepath.Join(ws, rel))
	cmd.Dir = ws
	out, _ := cmd.CombinedOutput() // exits non-zero when it finds errors
	var errs []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := clangdLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			errs = append(errs, m[1]+": "+firstLine(m[2]))
		}
	}
	sort.Strings(errs)
	return lowered(errs)
}

// lowered is errs in lower case: clangd's language server capitalizes
// the messages its command line does not ("Use of ...", "use of ...").
func lowered(errs []string) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = strings.ToLower(e)
	}
	return out
}

// TestRustCargoTomlAddedIsFresh: a Cargo.toml written after rust-analyzer
// started makes its directory a crate, for cargo check as for agentlsp.
// rust-analyzer discovers its projects only when it starts: it said
// "Failed to discover workspace" for as long as it ran, and every answer
// was project_error (honest, but never right) while cargo check found the
// type error.
func TestRustCargoTomlAddedIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "rust-analyzer")
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Fatalf("cargo is not on PATH: rust-analyzer and this test's oracle need a Rust toolchain (rustup): %v", err)
	}
	ws := workspace(t, map[string]string{"src/lib.rs": "pub fn f() -> i32 {\n    let x: i32 = 1u8;\n    x\n}\n"})
	s := start(t, ws).Session("agent")
	if r, _ := diagnostics(t, s, "src/lib.rs"); r.Status == "fresh" {
		t.Fatalf("before: fresh outside any Cargo project, want project_error: %+v", r)
	}
	write(t, ws, "Cargo.toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	r, _ := freshDiagnostics(t, s, "src/lib.rs")
	want := cargoErrors(t, cargo, ws, "src/lib.rs")
	if len(want) == 0 {
		t.Fatal("cargo check finds nothing: the test proves nothing")
	}
	if len(errorsOf(r)) == 0 {
		t.Errorf("fresh and clean, cargo check says %q", want)
	}
}

// TestClangdBuildCompileCommandsChangeIsFresh: a build's
// build/compile_commands.json rewritten with other flags (a cmake
// reconfigure) decides whether a file compiles, for clangd --check as for
// agentlsp. The watcher does not look into build/: the change went
// unseen, and the answer said fresh with the flags clangd first read.
func TestClangdBuildCompileCommandsChangeIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "clangd")
	ws := workspace(t, cFeatureFiles)
	ccj := func(flags string) string {
		return `[{"directory": "` + ws + `", "file": "a.c", "command": "cc ` + flags + ` -c a.c"}]` + "\n"
	}
	write(t, ws, "build/compile_commands.json", ccj("-DFEATURE"))
	s := start(t, ws).Session("agent")
	for i, flags := range []string{"-DFEATURE", "-DOTHER", "-DFEATURE"} {
		write(t, ws, "build/compile_commands.json", ccj(flags))
		r, _ := freshDiagnostics(t, s, "a.c")
		want := clangdCheck(t, ws, "a.c")
		if (flags == "-DOTHER") != (len(want) > 0) {
			t.Fatalf("step %d (%s): clangd --check says %q: the test proves nothing", i, flags, want)
		}
		if diff := cmp.Diff(want, lowered(errorsOf(r))); diff != "" {
			t.Errorf("step %d (%s): fresh answer and clangd --check differ (-clangd +agentlsp):\n%s", i, flags, diff)
		}
	}
}
