package reliability

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestCrashStorm kills the server every 100 ms for 30 s while 64 sessions
// edit and query. Every call answers within its timeout with a result or a
// typed error; afterwards (once the crash budget window has passed) the
// runtime serves normally, every document holds its latest text on the
// server, and the diagnostics are those of that text.
func TestCrashStorm(t *testing.T) {
	const sessions = 64
	storm := 30 * time.Second
	if testing.Short() {
		storm = 3 * time.Second
	}
	e := newEnv(t, sessions, func(_ *config.Server, c *agentlsp.Config) {
		c.Policy = supervisor.Policy{BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
			MaxCrashes: 5, Window: 2 * time.Second}
	})
	latest := make([]string, sessions)
	var mu sync.Mutex
	outcomes := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func() { // one worker per session, joined below
			defer wg.Done()
			s := e.rt.Session(fmt.Sprintf("agent-%d", i))
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				text := fmt.Sprintf("x = %d # ERROR: session %d edit %d\n", n, i, n)
				mu.Lock()
				latest[i] = text
				mu.Unlock()
				err := e.call(10*time.Second, "edit", func(ctx context.Context) error {
					_, err := s.Edit(ctx, e.files[i], text)
					return err
				})
				herr := e.call(10*time.Second, "hover", func(ctx context.Context) error {
					_, err := s.Hover(ctx, e.files[i], agentlsp.Position{})
					return err
				})
				mu.Lock()
				outcomes["edit "+kind(err)]++
				outcomes["hover "+kind(herr)]++
				mu.Unlock()
			}
		}()
	}
	kills := killEvery(e, 100*time.Millisecond, storm)
	close(stop)
	wg.Wait()
	t.Logf("storm: %d kills; outcomes %v", kills, outcomes)
	for k := range outcomes {
		if len(k) > 13 && k[len("edit "):len("edit ")+8] == "untyped:" || len(k) > 14 && k[len("hover "):len("hover ")+8] == "untyped:" {
			t.Errorf("untyped error outcome: %s", k)
		}
	}
	recoverAndCheck(t, e, latest)
}

// killEvery kills the server process every period for d; it returns how
// many processes it killed.
func killEvery(e *env, period, d time.Duration) int {
	kills := 0
	tick := time.NewTicker(period)
	defer tick.Stop()
	end := time.After(d)
	for {
		select {
		case <-end:
			return kills
		case <-tick.C:
			if pid := e.serverPID(); pid > 0 && syscall.Kill(pid, syscall.SIGKILL) == nil {
				kills++
			}
		}
	}
}

// recoverAndCheck waits out the crash budget window, then checks that the
// server serves, holds every document's latest text, and reports the
// diagnostics of that text.
func recoverAndCheck(t *testing.T, e *env, latest []string) {
	defer func() {
		if t.Failed() {
			servers, _ := e.rt.Servers(context.Background())
			t.Logf("servers: %+v", servers)
		}
	}()
	var lastErr error
	testenv.Eventually(t, 30*time.Second, "server serving again", func() bool {
		_, lastErr = e.rt.Session("probe").Hover(context.Background(), e.files[0], agentlsp.Position{})
		return lastErr == nil
	})
	if t.Failed() {
		t.Logf("last error: %v", lastErr)
	}
	for i, want := range latest {
		if want == "" {
			continue
		}
		got, err := e.serverText(e.files[i])
		if err != nil || got != want {
			t.Errorf("file %d on the server = %q, %v; want the latest text %q", i, got, err, want)
		}
	}
	res, err := e.rt.Session("agent-0").Edit(context.Background(), e.files[0], "y = 2 # ERROR: after the storm\n")
	if err != nil || res.Status != messages.StatusFresh || len(res.Files[0].Diagnostics) != 1 ||
		res.Files[0].Diagnostics[0].Message != "after the storm" {
		t.Errorf("edit after the storm = %+v, %v", res, err)
	}
}
