package fresh

import (
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestTypeScriptCleanEditIsFresh: a file changed on disk that stays clean
// is answered fresh (typescript-language-server publishes nothing when a
// file's diagnostics go from none to none: the answer waited for its
// timeout and came back stale); an error made and fixed in another file
// shows in its importer and goes away, as tsc says.
func TestTypeScriptCleanEditIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "typescript-language-server")
	ws := workspace(t, tsFiles)
	s := start(t, ws).Session("agent")
	for i, text := range []string{"export const x: number = 2;\n", "export const x: number = 3;\n// a comment\n"} {
		write(t, ws, "src/c.ts", text)
		if r, _ := freshDiagnostics(t, s, "src/c.ts"); len(errorsOf(r)) != 0 {
			t.Errorf("clean edit %d: %v, want clean", i, errorsOf(r))
		}
	}
	freshDiagnostics(t, s, "src/b.ts")
	write(t, ws, "src/a.ts", "export function f(): string {\n  return \"s\";\n}\n")
	r, _ := freshDiagnostics(t, s, "src/b.ts")
	if errs := errorsOf(r); !contains(errs, "Type 'string' is not assignable to type 'number'") {
		t.Errorf("b.ts after f returns a string: %v, want the type error", errs)
	}
	checkTSC(t, ws, "src/b.ts", errorsOf(r))
	write(t, ws, "src/a.ts", tsFiles["src/a.ts"])
	r, _ = freshDiagnostics(t, s, "src/b.ts")
	if errs := errorsOf(r); len(errs) != 0 {
		t.Errorf("b.ts after the fix: %v, want clean", errs)
	}
	checkTSC(t, ws, "src/b.ts", errorsOf(r))
}
