package fresh

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// The concurrency soak: N sessions edit their own files of a generated
// multi-package module at the same time, while one more session changes
// the exported signatures of a package the others' packages use. Every
// answer's own-file diagnostics must equal `gopls check` of that text, and
// its "caused by this edit" files must be files the edit breaks when it is
// replayed alone on a copy. The test command runs a short soak; the full
// one with `-conc.sessions 16 -conc.rounds 10`.
var (
	concSessions = flag.Int("conc.sessions", 3, "sessions of the concurrency soak (besides the signature changer)")
	concRounds   = flag.Int("conc.rounds", 2, "rounds per session of the concurrency soak")
)

// concModule: package api (the changer's), and per session i a package
// qi with own.go (the session's) and use.go (calls api; nobody edits it).
func concModule(n int) map[string]string {
	f := map[string]string{
		"go.mod":     "module example.com/conc\n\ngo 1.22\n",
		"api/api.go": apiText(false),
	}
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("q%d", i)
		f[q+"/own.go"] = ownText(q, false)
		f[q+"/use.go"] = fmt.Sprintf("package %s\n\nimport \"example.com/conc/api\"\n\n// Use calls api.Do.\nfunc Use() int { return api.Do(1) }\n", q)
	}
	return f
}

func apiText(twoParams bool) string {
	if twoParams {
		return "package api\n\n// Do is changed by the soak.\nfunc Do(x, y int) int { return x + y }\n"
	}
	return "package api\n\n// Do is changed by the soak.\nfunc Do(x int) int { return x }\n"
}

func ownText(q string, broken bool) string {
	if broken {
		return "package " + q + "\n\n// Own is a session's file.\nfunc Own() int { return undefinedName }\n"
	}
	return "package " + q + "\n\n// Own is a session's file.\nfunc Own() int { return 1 }\n"
}

// oracle is gopls check of rel in a copy of ws where the files in texts
// have those texts.
func oracle(t *testing.T, ws string, texts map[string]string, rel string) []string {
	dir := t.TempDir()
	testenv.CopyInto(t, ws, dir)
	for r, text := range texts {
		write(t, dir, r, text)
	}
	return goplsCheck(t, dir, rel)
}

type concAnswer struct {
	session, file string
	own           []string // the answer's own-file errors
	caused        []string // the files it names as caused
	meanwhile     int      // the files it names as changed meanwhile
	before, after string
}

func TestConcurrencySoak(t *testing.T) {
	n := *concSessions
	ws := workspace(t, concModule(n))
	rt := start(t, ws)
	warmer := rt.Session("warm")
	for rel := range concModule(n) {
		if filepath.Ext(rel) == ".go" {
			freshDiagnostics(t, warmer, rel)
		}
	}
	var mu sync.Mutex
	var answers []concAnswer
	var wg sync.WaitGroup
	for i := 0; i <= n; i++ {
		wg.Go(func() {
			s := rt.Session(fmt.Sprintf("S%d", i))
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for round := 0; round < *concRounds; round++ {
				file, before, after := concChange(i, n, round, r)
				res, err := s.Edit(context.Background(), file, after, agentlsp.WithTimeout(30*time.Second), agentlsp.WithAll())
				if err != nil {
					t.Errorf("%s edit of %s: %v", s.ID(), file, err)
					return
				}
				a := concAnswer{session: s.ID(), file: file, own: errorsOf(res.Files[0]), before: before, after: after}
				for _, f := range res.Files[1:] {
					a.caused = append(a.caused, filepath.ToSlash(f.Path))
				}
				a.meanwhile = len(res.Meanwhile)
				if res.Status != messages.StatusFresh {
					t.Logf("%s %s: %s (%s)", s.ID(), file, res.Status, res.Files[0].Detail)
					continue
				}
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	checkConcAnswers(t, ws, answers)
}

// concChange is session i's change in a round: the changer (i == n) flips
// api's signature; the others break or fix their own file.
func concChange(i, n, round int, r *rand.Rand) (file, before, after string) {
	if i == n {
		return "api/api.go", apiText(round%2 == 1), apiText(round%2 == 0)
	}
	q := fmt.Sprintf("q%d", i)
	broken := r.IntN(2) == 0
	return q + "/own.go", ownText(q, !broken), ownText(q, broken)
}

// checkConcAnswers checks every fresh answer against the oracle: its own
// file's errors equal gopls check of its text; every file it names as
// caused has errors that appear when its edit is replayed alone.
func checkConcAnswers(t *testing.T, ws string, answers []concAnswer) {
	named, wrong, meanwhile := 0, 0, 0
	for _, a := range answers {
		meanwhile += a.meanwhile
		if a.file != "api/api.go" {
			if diff := cmp.Diff(oracle(t, ws, map[string]string{a.file: a.after}, a.file), a.own); diff != "" {
				t.Errorf("%s %s: own-file errors differ from gopls check (-gopls +agentlsp):\n%s", a.session, a.file, diff)
			}
		}
		for _, c := range a.caused {
			named++
			alone := oracle(t, ws, map[string]string{a.file: a.after}, c)
			prior := oracle(t, ws, map[string]string{a.file: a.before}, c)
			if !newErrors(prior, alone) {
				wrong++
				t.Errorf("%s's edit of %s names %s as broken by it, but replayed alone it adds no error there", a.session, a.file, c)
			}
		}
	}
	t.Logf("concurrency soak: %d fresh answers, %d files named as caused (%d wrongly), %d as changed meanwhile",
		len(answers), named, wrong, meanwhile)
}

func newErrors(before, after []string) bool {
	seen := map[string]bool{}
	for _, e := range before {
		seen[e] = true
	}
	for _, e := range after {
		if !seen[e] {
			return true
		}
	}
	return false
}
