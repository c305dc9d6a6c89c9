package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestDemo runs the demo against the real gopls and pyright the test
// command installs, and checks what each agent saw.
func TestDemo(t *testing.T) {
	testenv.ServerBinary(t, "gopls")
	testenv.ServerBinary(t, "pyright-langserver")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"-dir", t.TempDir()}, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"[go-agent] definition of Total (shop/checkout.go:5): shop/cart.go:10:6 (answered by [gopls])",
		"ERROR [5:24] undefined: Discount (compiler/UndeclaredName)",
		"[py-agent] definition of vat (billing/invoice.py:5): billing/rates.py:1:5 (answered by [pyright])",
		`ERROR [5:25] Argument of type "str" cannot be assigned to parameter "amount" of type "int" in function "vat"`,
		"kill -9 ",
		"<diagnostics file=\"shop/checkout.go\" status=\"fresh\">\nERROR [9:25] cannot use \"fee\" (untyped string constant) as int value in return statement (compiler/IncompatibleAssign)\n</diagnostics>",
		"[go-agent] drops Fee and defines Discount",
		"gopls    root shop running, incarnation 2",
		"pyright  root billing running, incarnation 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "status=\"fresh\"") != 5 || strings.Contains(got, "(status ") {
		t.Errorf("every answer should be fresh:\n%s", got)
	}
}
