package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// runtimeClient drives agentlsp through its embedding API: one Runtime
// shared by every session (shared mode, what agentlsp is for), or one
// Runtime per session on the same workspace (per-session mode: what an
// integration that gives each agent its own language client does, each
// starting its own servers).
type runtimeClient struct {
	rts      []*agentlsp.Runtime
	sessions []*agentlsp.Session
	log      *os.File // the debug log, when asked for
}

// newRuntimeClient starts the runtimes (lazily: no server runs yet).
func newRuntimeClient(ctx context.Context, spec serverSpec, dir string, sessions int, perSession bool,
	settle, diagTimeout time.Duration, debugLog string) (*runtimeClient, error) {
	c := &runtimeClient{}
	var logger *slog.Logger
	if debugLog != "" {
		f, err := os.OpenFile(debugLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		c.log = f
		logger = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	n := 1
	if perSession {
		n = sessions
	}
	for range n {
		// The shared runtime watches the workspace, as agentlsp does by
		// default: its freshness barrier is then nearly free. Without a
		// watcher every call compares the stamps of all open documents
		// with the disk. One runtime per session would mean one inotify
		// instance each (the usual limit is 128 per user): those do not
		// watch.
		rt, err := agentlsp.Start(ctx, agentlsp.Config{
			Workspace: dir, Registry: config.RegistryOf(spec.def.Clone()), NoWatch: perSession,
			Settle: settle, DiagnosticsTimeout: diagTimeout, Logger: logger,
		})
		if err != nil {
			return nil, errors.Join(err, c.close(ctx))
		}
		c.rts = append(c.rts, rt)
	}
	for i := range sessions {
		c.sessions = append(c.sessions, c.rts[i%n].Session(fmt.Sprintf("agent-%d", i)))
	}
	return c, nil
}

// edit is Session.Edit: sync and wait for the diagnostics the edit caused.
func (c *runtimeClient) edit(ctx context.Context, s int, f *file, text string, timeout time.Duration) (outcome, error) {
	res, err := c.sessions[s].Edit(ctx, f.path, text, agentlsp.WithTimeout(timeout))
	if err != nil {
		return outcome{}, err
	}
	o := outcome{status: res.Status}
	if len(res.Files) > 0 {
		f := res.Files[0]
		o.errors = len(f.Diagnostics) // errors only: the default severity
		o.otherFiles = len(res.Files) - 1
		o.report = &res.Files[0]
	}
	return o, nil
}

// nav is Session.Hover (even k) or Session.Definition (odd k).
func (c *runtimeClient) nav(ctx context.Context, s int, f *file, k int) error {
	var err error
	if k%2 == 0 {
		_, err = c.sessions[s].Hover(ctx, f.path, f.hover)
	} else {
		_, err = c.sessions[s].Definition(ctx, f.path, f.def)
	}
	return err
}

// barriers sums the routers' barrier counts.
func (c *runtimeClient) barriers(ctx context.Context) messages.BarrierStats {
	var sum messages.BarrierStats
	for _, rt := range c.rts {
		res, err := rt.System().Root.RequestFuture(rt.Router(), &messages.GetRouterStatus{}, 10*time.Second).Result()
		if st, ok := res.(*messages.RouterStatus); ok && err == nil {
			sum.Taken, sum.Skipped = sum.Taken+st.Barriers.Taken, sum.Skipped+st.Barriers.Skipped
			sum.Spent, sum.Reaching = sum.Spent+st.Barriers.Spent, sum.Reaching+st.Barriers.Reaching
		}
	}
	return sum
}

// close shuts every runtime down, in parallel.
func (c *runtimeClient) close(ctx context.Context) error {
	errs := make([]error, len(c.rts))
	var wg sync.WaitGroup
	for i, rt := range c.rts {
		wg.Add(1)
		// One per runtime, joined below.
		go func() {
			defer wg.Done()
			errs[i] = rt.Shutdown(ctx)
		}()
	}
	wg.Wait()
	if c.log != nil {
		errs = append(errs, c.log.Close())
	}
	return errors.Join(errs...)
}
