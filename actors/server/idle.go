package server

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// idleCheck fires one idle timeout after the server last became idle.
type idleCheck struct{ activity uint64 }

// idle reports whether the server has no open document and no call.
func (a *serverActor) idle() bool { return a.calls.Len() == 0 && a.st.docs.OpenCount() == 0 }

// scheduleIdle starts a new idle period when the server is idle, replacing
// the pending one: there is at most one idle timer, whatever the traffic.
func (a *serverActor) scheduleIdle() {
	if !a.idle() {
		return
	}
	a.timers.Cancel(a.idleTimer)
	a.idleTimer = a.timers.After(a.lim.IdleTimeout, &idleCheck{activity: a.activity})
}

// onIdleCheck tells the parent the server has been idle for its idle
// timeout, if nothing happened since; the parent decides whether to stop it.
func (a *serverActor) onIdleCheck(ctx actor.Context, m *idleCheck) {
	a.idleTimer = 0
	if m.activity != a.activity || !a.idle() || ctx.Parent() == nil {
		return
	}
	ctx.Send(ctx.Parent(), &messages.ServerIdle{ServerKey: a.key(), Activity: a.activity})
}
