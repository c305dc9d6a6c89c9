package e2e

import (
	"context"
	"encoding/json"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// notFresh finds a file of a diagnostics answer whose status says it is
// not current: the honest answer of a server that took longer than the
// wait (a cold pyright, or any server on a loaded machine).
var notFresh = regexp.MustCompile(`"status": "(timeout|stale|not_ready)"`)

// agrees reports whether got is the unshared answer want or, for
// diagnostics, differs from it only in files whose status says they are
// not current: a file answered fresh must be exactly the unshared one.
func agrees(c toolCall, want, got string) bool {
	if got == want {
		return true
	}
	if c.tool != "diagnostics" {
		return false
	}
	type files struct {
		Files []map[string]any `json:"files"`
	}
	var w, g files
	if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal([]byte(got), &g) != nil || len(w.Files) != len(g.Files) {
		return false
	}
	for i, f := range g.Files {
		switch f["status"] {
		case "timeout", "stale", "not_ready":
			if f["path"] != w.Files[i]["path"] {
				return false
			}
		default:
			if !cmp.Equal(f, w.Files[i]) {
				return false
			}
		}
	}
	return true
}

// killWhileWorking makes every client call in a loop, kills the daemon
// with SIGKILL once each made a round, and checks that every call of every
// client was answered, and right: equal to the unshared answer, except
// diagnostics of files whose status says they are not current (pyright
// takes longer than the 3 s wait to its first diagnostics on the new
// daemon, as on any first start; any server may on a loaded machine).
func killWhileWorking(t *testing.T, ctx context.Context, clients []*sdk.ClientSession, want []string, daemon int) {
	var rounds atomic.Int32
	var killed atomic.Bool
	var wg sync.WaitGroup
	var calls, late atomic.Int32
	for i, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			afterKill := 0
			for round := 0; afterKill < 3; round++ {
				if killed.Load() {
					afterKill++
				}
				for j, c := range sharedCalls {
					got, err := answer(ctx, cs, c)
					calls.Add(1)
					switch {
					case err == nil && got == want[j]:
					case err == nil && agrees(c, want[j], got):
						late.Add(1)
					default:
						t.Errorf("client %d, round %d: %v: %v, differs from the unshared answer:\n%s", i, round, c, err, cmp.Diff(want[j], got))
					}
				}
				if round == 0 {
					rounds.Add(1)
				}
			}
		}()
	}
	testenv.Eventually(t, 5*time.Minute, "every client made a round", func() bool { return rounds.Load() == int32(len(clients)) })
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.Store(true)
	wg.Wait()
	t.Logf("%d calls while the daemon was killed and replaced; %d diagnostics answers said some file was not current", calls.Load(), late.Load())
}
