package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestDemoWithRealGopls(t *testing.T) {
	gopls := testenv.ServerBinary(t, "gopls")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"-gopls", gopls, "-dir", t.TempDir()}, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	got := out.String()
	diag := "ERROR [6:14] undefined: greeting (compiler/UndeclaredName)"
	if n := strings.Count(got, diag); n != 2 {
		t.Errorf("output has %q %d times, want 2 (before and after the restart):\n%s", diag, n, got)
	}
	for _, want := range []string{"state: starting (incarnation 2)", "state: running (incarnation 2)", "3. define the function\n<diagnostics file=\"main.go\" status=\"fresh\">\n</diagnostics>"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
