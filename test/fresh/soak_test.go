package fresh

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

// The soak with an oracle: rounds of random changes on disk across three
// packages (add a file, change a signature, break and fix a call, delete
// and restore a file), each followed at once by one diagnostics call
// naming one random file. Every answer marked fresh must equal what
// `gopls check` reports for that file at that moment. The test command
// runs a short soak; the full one (300 rounds) runs with
// `go test ./test/fresh -run TestSoak -soak.rounds 300 -v`.
var (
	soakRounds = flag.Int("soak.rounds", 12, "rounds of the freshness soak")
	soakSeed   = flag.Uint64("soak.seed", 1, "seed of the freshness soak")
)

// soakModule is the soak's module: a is imported by b, b by c.
type soakModule struct {
	ws                         string
	twoParams, extra, useExtra bool
	brokenCall                 bool
	added                      int
}

func (m *soakModule) files() map[string]string {
	f := map[string]string{
		"go.mod": "module example.com/soak\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// F is changed by the soak.\nfunc F(x int) int { return x }\n",
		"b/b.go": "package b\n\nimport \"example.com/soak/a\"\n\n// G calls a.F.\nfunc G() int { return a.F(1) }\n",
		"c/c.go": "package c\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/soak/b\"\n)\n\n// H calls b.G.\nfunc H() string { return fmt.Sprint(b.G()) }\n",
	}
	if m.twoParams {
		f["a/a.go"] = "package a\n\n// F is changed by the soak.\nfunc F(x, y int) int { return x + y }\n"
	}
	if m.extra {
		f["a/extra.go"] = "package a\n\n// Extra comes and goes.\nfunc Extra() int { return 2 }\n"
	}
	if m.useExtra {
		f["b/use.go"] = "package b\n\nimport \"example.com/soak/a\"\n\nvar _ = a.Extra()\n"
	}
	if m.brokenCall {
		f["c/c.go"] = "package c\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/soak/b\"\n)\n\n// H calls b.G.\nfunc H() string { return fmt.Sprint(b.G(\"x\")) }\n"
	}
	for i := 1; i <= m.added; i++ {
		f[fmt.Sprintf("b/added%d.go", i)] = fmt.Sprintf("package b\n\n// Added%d was added by the soak.\nfunc Added%d() int { return G() }\n", i, i)
	}
	return f
}

// sync writes the module as it should be, deleting the files it dropped.
func (m *soakModule) sync(t *testing.T, before map[string]string) {
	now := m.files()
	for rel, text := range now {
		if before[rel] != text {
			write(t, m.ws, rel, text)
		}
	}
	for rel := range before {
		if _, ok := now[rel]; !ok {
			if err := os.Remove(filepath.Join(m.ws, filepath.FromSlash(rel))); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// change makes one random change and says what it was.
func (m *soakModule) change(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		m.twoParams = !m.twoParams
		return "change the signature of a.F"
	case 1:
		m.extra = !m.extra
		return "delete or restore a/extra.go"
	case 2:
		m.useExtra = !m.useExtra
		return "add or remove a use of a.Extra in b"
	case 3:
		m.brokenCall = !m.brokenCall
		return "break or fix the call of b.G in c"
	}
	m.added++
	return "add a file to b"
}

func TestSoak(t *testing.T) {
	m := &soakModule{}
	m.ws = workspace(t, m.files())
	s := start(t, m.ws).Session("soak")
	r := rand.New(rand.NewPCG(*soakSeed, 0))
	var took []time.Duration
	var falseFresh, notFresh int
	freshDiagnostics(t, s, "c/c.go") // gopls up and warm
	for round := 1; round <= *soakRounds; round++ {
		before := m.files()
		what := m.change(r)
		m.sync(t, before)
		names := sortedGoFiles(m.files())
		file := names[r.IntN(len(names))]
		start := time.Now()
		rep, _ := diagnostics(t, s, file)
		took = append(took, time.Since(start))
		if rep.Status != messages.StatusFresh {
			notFresh++
			t.Logf("round %d (%s): %s %s (%s)", round, what, file, rep.Status, rep.Detail)
			continue
		}
		if diff := cmp.Diff(goplsCheck(t, m.ws, file), errorsOf(rep)); diff != "" {
			falseFresh++
			t.Errorf("round %d (%s): %s is fresh but differs from gopls check (-gopls +agentlsp):\n%s", round, what, file, diff)
		}
	}
	slices.Sort(took)
	t.Logf("soak: %d rounds, %d false fresh, %d not fresh; diagnostics call p50 %v p99 %v",
		*soakRounds, falseFresh, notFresh, took[len(took)/2].Round(time.Millisecond),
		took[min(len(took)-1, len(took)*99/100)].Round(time.Millisecond))
}

func sortedGoFiles(files map[string]string) []string {
	var out []string
	for rel := range files {
		if strings.HasSuffix(rel, ".go") {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
