package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlsp/agentlsp/messages"
)

// The sample workspace.
const (
	goMod  = "module example.com/shop\n\ngo 1.22\n"
	goCart = `package shop

// Item is a line of a cart.
type Item struct {
	Name  string
	Price int
}

// Total sums the prices of items.
func Total(items []Item) int {
	sum := 0
	for _, it := range items {
		sum += it.Price
	}
	return sum
}
`
	goMain = `package shop

// Checkout returns the amount to pay.
func Checkout(items []Item) int {
	return Total(items)
}
`
	pyProject = "[project]\nname = \"billing\"\nversion = \"0.1.0\"\n"
	pyRates   = "def vat(amount: int) -> float:\n    return amount * 0.2\n"
	pyInvoice = "from rates import vat\n\n\ndef invoice(amount: int) -> float:\n    return amount + vat(amount)\n"
)

// Edits the agents make.
const (
	goBroken = "package shop\n\n// Checkout returns the amount to pay.\nfunc Checkout(items []Item) int {\n\treturn Total(items) + Discount(items)\n}\n"
	goCrash  = goBroken + "\n// Fee is a flat fee.\nfunc Fee() int { return \"fee\" }\n"
	pyBroken = "from rates import vat\n\n\ndef invoice(amount: int) -> float:\n    return amount + vat(str(amount))\n"
)

func writeWorkspace(dir string) (string, func(), error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agentlsp-demo-")
		if err != nil {
			return "", nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	files := map[string]string{
		"shop/go.mod": goMod, "shop/cart.go": goCart, "shop/checkout.go": goMain,
		"billing/pyproject.toml": pyProject, "billing/rates.py": pyRates, "billing/invoice.py": pyInvoice,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	return abs, cleanup, err
}

// transcript is one agent's output.
type transcript struct{ bytes.Buffer }

func (d *demo) edit(ctx context.Context, t *transcript, agent, rel, text, why string) error {
	fmt.Fprintf(t, "[%s] %s\n", agent, why)
	start := time.Now()
	res, err := d.rt.Session(agent).Edit(ctx, filepath.Join(d.ws, rel), text)
	if err != nil {
		return fmt.Errorf("%s: edit %s: %w", agent, rel, err)
	}
	fmt.Fprintf(t, "[%s] diagnostics in %s:\n", agent, time.Since(start).Round(10*time.Millisecond))
	ed := d.rt.Editor()
	ed.SetText(filepath.Join(d.ws, rel), text)
	if res.Status != messages.StatusFresh {
		fmt.Fprintf(t, "[%s] (status %s: %s)\n", agent, res.Status, res.Files[0].Detail)
	}
	return ed.Render(t, res.Files)
}

func (d *demo) definition(ctx context.Context, t *transcript, agent, rel string, line1 int, symbol string) error {
	path := filepath.Join(d.ws, rel)
	ed := d.rt.Editor()
	pos, err := ed.Position(path, line1, 1, symbol)
	if err != nil {
		return err
	}
	ans, err := d.rt.Session(agent).Definition(ctx, path, pos)
	if err != nil {
		return fmt.Errorf("%s: definition: %w", agent, err)
	}
	for _, l := range ans.Locations {
		fmt.Fprintf(t, "[%s] definition of %s (%s:%d): %s (answered by %v)\n", agent, symbol, rel, line1, ed.Location(l.Path, l.Range), ans.Servers)
	}
	return nil
}

func (d *demo) goAgentBreaks(ctx context.Context, t *transcript) error {
	if err := d.definition(ctx, t, "go-agent", "shop/checkout.go", 5, "Total"); err != nil {
		return err
	}
	return d.edit(ctx, t, "go-agent", "shop/checkout.go", goBroken, "calls Discount, which does not exist yet")
}

func (d *demo) pyAgentBreaks(ctx context.Context, t *transcript) error {
	if err := d.definition(ctx, t, "py-agent", "billing/invoice.py", 5, "vat"); err != nil {
		return err
	}
	return d.edit(ctx, t, "py-agent", "billing/invoice.py", pyBroken, "passes a str to vat(amount: int)")
}

func (d *demo) goAgentAfterCrash(ctx context.Context) error {
	t := &transcript{}
	err := d.edit(ctx, t, "go-agent", "shop/checkout.go", goCrash, "edits again at once: a Fee function that returns a string")
	d.out.Write(t.Bytes())
	return err
}

func (d *demo) goAgentFixes(ctx context.Context, t *transcript) error {
	fixed := goMain[:len(goMain)-len("}\n")] + "}\n\n// Discount is 10 per item.\nfunc Discount(items []Item) int { return 10 * len(items) }\n"
	return d.edit(ctx, t, "go-agent", "shop/checkout.go", fixed, "drops Fee and defines Discount")
}

func (d *demo) pyAgentFixes(ctx context.Context, t *transcript) error {
	return d.edit(ctx, t, "py-agent", "billing/invoice.py", pyInvoice, "passes the int again")
}
