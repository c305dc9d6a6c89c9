package fresh

import (
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

var cFiles = map[string]string{
	"compile_flags.txt": "-Wall\n",
	"vec.h":             "int add(int a, int b);\n",
	"vec.c":             "#include \"vec.h\"\n\nint add(int a, int b) { return a + b; }\n",
	"main.c":            "#include \"vec.h\"\n\nint main(void) { return add(1, 2); }\n",
}

// TestClangdAskedAgainIsFresh: a file asked about again after another was
// opened is answered fresh. agentlsp asks for a new diagnosis of the
// unchanged text (the other file's opening may matter to other servers);
// clangd ignored the unchanged text and published nothing, so the answer
// waited for its timeout and came back stale. A header changed on disk
// shows in the file that includes it.
func TestClangdAskedAgainIsFresh(t *testing.T) {
	testenv.ServerBinary(t, "clangd")
	ws := workspace(t, cFiles)
	s := start(t, ws).Session("agent")
	for _, f := range []string{"main.c", "vec.c", "main.c"} {
		if r, _ := freshDiagnostics(t, s, f); len(errorsOf(r)) != 0 {
			t.Fatalf("%s: %v, want clean", f, errorsOf(r))
		}
	}
	write(t, ws, "vec.h", "int add(int a, int b, int c);\n")
	r, _ := freshDiagnostics(t, s, "main.c")
	if errs := errorsOf(r); !contains(errs, "Too few arguments to function call") {
		t.Errorf("main.c after the header changed: %v, want too few arguments to add", errs)
	}
}
