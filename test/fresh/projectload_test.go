package fresh

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// Projects a server cannot load. Each test asks about a file with a type
// error in a project its server says it could not load: the answer must
// not be fresh (it was fresh and clean before: rust-analyzer and gopls
// checked nothing), it must quote the server's message, and once the
// project is fixed on disk the next answers are fresh with the error.

const rustTypeError = "fn main() {\n    let x: i32 = \"s\";\n    let _ = x;\n}\n"

// projectError asks about rel until the answer is not not_ready (a server
// still loading) and fails unless it is project_error with a detail that
// holds want.
func projectError(t *testing.T, s *agentlsp.Session, rel, want string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, _ := diagnostics(t, s, rel)
		if r.Status == messages.StatusNotReady && time.Now().Before(deadline) {
			continue
		}
		if r.Status != messages.StatusProjectError || !strings.Contains(r.Detail, want) {
			t.Fatalf("Diagnostics(%s) = %s (%s) %v, want %s quoting %q", rel, r.Status, r.Detail, errorsOf(r), messages.StatusProjectError, want)
		}
		return
	}
}

// freshWith asks about rel until the answer is fresh and holds an error
// that mentions want: a server reloads a fixed project in the background,
// and the answers meanwhile may still say it could not.
func freshWith(t *testing.T, s *agentlsp.Session, rel, want string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r, _ := diagnostics(t, s, rel)
		if r.Status == messages.StatusFresh && contains(errorsOf(r), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Diagnostics(%s) = %s (%s) %v, want fresh with an error about %q", rel, r.Status, r.Detail, errorsOf(r), want)
		}
		time.Sleep(100 * time.Millisecond) // the server reloads on its own: no condition of ours to await
	}
}

// TestRustFileOutsideACargoProject: rust-analyzer says "Failed to discover
// workspace" (an error window/showMessage) and answers pulls with nothing.
// A Cargo.toml written afterwards does not help: rust-analyzer discovers
// its projects when it starts, and fetches the same nothing again when it
// hears of the new file; the answers stay project_error until it restarts.
func TestRustFileOutsideACargoProject(t *testing.T) {
	testenv.ServerBinary(t, "rust-analyzer")
	ws := workspace(t, map[string]string{"sub/e.rs": rustTypeError})
	s := start(t, ws).Session("agent")
	projectError(t, s, "sub/e.rs", "Failed to discover workspace")
}

// TestRustBrokenCargoToml: rust-analyzer says "Failed to load workspaces"
// after its "Fetching" work; fixed, it loads the crate and the answer is
// fresh with the type error.
func TestRustBrokenCargoToml(t *testing.T) {
	testenv.ServerBinary(t, "rust-analyzer")
	ws := workspace(t, map[string]string{"Cargo.toml": "[package\nname=\n", "src/main.rs": rustTypeError})
	s := start(t, ws).Session("agent")
	projectError(t, s, "src/main.rs", "Failed to load workspaces")
	write(t, ws, "Cargo.toml", "[package]\nname = \"e\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")
	freshWith(t, s, "src/main.rs", "mismatched types")
}

// TestGoBrokenGoMod: gopls reports a broken go.mod as an "Error loading
// workspace" work-done progress held while it lasts (and a warning on the
// file, which `agentlsp check` hides by default); fixed, the progress ends.
func TestGoBrokenGoMod(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	const good = "module example.com/m\n\ngo 1.21\n"
	ws := workspace(t, map[string]string{"go.mod": good + "require (\n",
		"m.go": "package main\n\nfunc main() { var x int = \"s\"; _ = x }\n"})
	s := start(t, ws).Session("agent")
	projectError(t, s, "m.go", "go.mod:5: syntax error")
	write(t, ws, "go.mod", good)
	freshWith(t, s, "m.go", "cannot use")
}

// TestGoWithoutGoModIsChecked: gopls checks a file outside any module on
// its own (an ad hoc package) and says nothing of a failure: fresh.
func TestGoWithoutGoModIsChecked(t *testing.T) {
	ws := workspace(t, map[string]string{"sub/m.go": "package main\n\nfunc main() { var x int = \"s\"; _ = x }\n"})
	s := start(t, ws).Session("agent")
	r, _ := freshDiagnostics(t, s, "sub/m.go")
	if !contains(errorsOf(r), "cannot use") {
		t.Errorf("Diagnostics(sub/m.go) = %v, want the type error", errorsOf(r))
	}
}

// TestPyrightBrokenPyproject: pyright logs that an unparsable
// pyproject.toml "could not be parsed" (an error window/logMessage) and
// checks with its defaults instead of the project's settings.
func TestPyrightBrokenPyproject(t *testing.T) {
	testenv.ServerBinary(t, "pyright-langserver")
	ws := workspace(t, map[string]string{"pyproject.toml": "[tool.pyright\nx=\n", "a.py": "x: int = \"s\"\n"})
	s := start(t, ws).Session("agent")
	projectError(t, s, "a.py", "could not be parsed")
	write(t, ws, "pyproject.toml", "[tool.pyright]\n")
	freshWith(t, s, "a.py", "is not assignable")
}
