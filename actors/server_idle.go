package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// idleCheck fires one idle timeout after the actor last became idle.
type idleCheck struct{ seq uint64 }

// idle reports whether the server has no open document and no call.
func (a *serverActor) idle() bool {
	if len(a.calls) > 0 {
		return false
	}
	for _, d := range a.st.docs {
		if d.open {
			return false
		}
	}
	return true
}

// scheduleIdle starts a new idle period when the server is idle: any later
// activity makes the pending check stale.
func (a *serverActor) scheduleIdle(ctx actor.Context) {
	if !a.idle() || ctx.Parent() == nil {
		return
	}
	a.idleSeq++
	a.after(ctx, a.cfg.Server.Idle(), &idleCheck{seq: a.idleSeq})
}

// onIdleCheck tells the parent the server has been idle for its idle
// timeout; the parent decides whether to stop it.
func (a *serverActor) onIdleCheck(ctx actor.Context, m *idleCheck) {
	if m.seq != a.idleSeq || !a.idle() {
		return
	}
	ctx.Send(ctx.Parent(), &messages.ServerIdle{
		ServerKey: messages.ServerKey{ServerID: a.cfg.Server.ID, Root: a.cfg.Root},
		Activity:  a.activity,
	})
}
