package daemon

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon/rundir"
	"github.com/agentlsp/agentlsp/messages"
)

// Report is one daemon's status, or why it could not be had.
type Report struct {
	Entry  rundir.Entry
	Status *messages.DaemonStatus
	Err    error
}

// Status asks each daemon of entries for its status, through one client
// (protoactor remote is started once per call), each ask bounded by 5 s.
// It blocks until every daemon answered or failed.
func Status(ctx context.Context, entries []rundir.Entry, log *slog.Logger) []Report {
	out := make([]Report, len(entries))
	for i, e := range entries {
		out[i].Entry = e
	}
	if len(entries) == 0 {
		return out
	}
	sys := lifecycle.NewSystem(log)
	defer sys.Shutdown()
	a := newAuth("", slog.New(slog.DiscardHandler))
	r, _, err := startRemote(sys, a)
	if err != nil {
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	defer stopRemote(r)
	for i, e := range entries {
		if ctx.Err() != nil {
			out[i].Err = ctx.Err()
			continue
		}
		a.allow(e.Address, e.Token)
		res, err := sys.Root.RequestFuture(actor.NewPID(e.Address, e.Front), &messages.GetDaemonStatus{}, statusTimeout).Result()
		switch st, ok := res.(*messages.DaemonStatus); {
		case err != nil:
			out[i].Err = fmt.Errorf("daemon %d: %w", e.PID, err)
		case !ok:
			out[i].Err = fmt.Errorf("daemon %d: no answer (%T)", e.PID, res)
		default:
			out[i].Status = st
		}
	}
	return out
}
