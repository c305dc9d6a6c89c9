package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// progressDelay is how long a wait lasts before the progress reporter
// says what it waits for, and how often it looks again.
const progressDelay = time.Second

// statusTimeout bounds one router status request.
const statusTimeout = 2 * time.Second

// withProgress runs f; when w is a terminal, a progress reporter says on
// w what a long wait waits for.
func withProgress(rt *agentlsp.Runtime, w io.Writer, f func()) {
	if isTerminal(w) {
		stop := startProgress(rt, w, progressDelay)
		defer stop()
	}
	f()
}

// startProgress starts the progress reporter: once every delay it asks
// the router which servers run, and writes to w a line such as
// "agentlsp: waiting for gopls (indexing)..." whenever that line changes.
// stop ends the reporter and waits for it; call it exactly once.
func startProgress(rt *agentlsp.Runtime, w io.Writer, delay time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	// The reporter lives until stop closes done; stop joins it.
	wg.Go(func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		last := ""
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if st, err := routerStatus(rt); err == nil {
				if line := waitingLine(st); line != "" && line != last {
					fmt.Fprintln(w, line)
					last = line
				}
			}
			t.Reset(delay)
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// routerStatus asks the router which servers it runs. It blocks at most
// statusTimeout.
func routerStatus(rt *agentlsp.Runtime) (*messages.RouterStatus, error) {
	res, err := rt.System().Root.RequestFuture(rt.Router(), &messages.GetRouterStatus{}, statusTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("router status: %w", err)
	}
	st, ok := res.(*messages.RouterStatus)
	if !ok {
		return nil, fmt.Errorf("router status: unexpected reply %T", res)
	}
	return st, nil
}

// waitingLine describes the servers a wait may be waiting for, "" when
// none: a starting server is "starting", a running one "indexing" (it has
// not answered yet), a crashed one "restarting".
func waitingLine(st *messages.RouterStatus) string {
	var parts []string
	for _, s := range st.Servers {
		var what string
		switch {
		case s.Broken || s.State == messages.StateStopped || s.State == messages.StateStopping:
			continue
		case s.State == messages.StateStarting:
			what = "starting"
		case s.State == messages.StateError && errors.Is(s.Err, messages.ErrReconfiguring):
			what = "its configuration is changing"
		case s.State == messages.StateError:
			what = "restarting"
		default:
			what = "indexing"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", s.ServerID, what))
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	parts = slices.Compact(parts) // one server at several roots
	return "agentlsp: waiting for " + strings.Join(parts, ", ") + "..."
}
