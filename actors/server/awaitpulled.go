package server

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// Waiting for first pulls. Before an edit in memory changes a module, the
// router opens the module's importers (router/importers.go) and asks for
// their first diagnosis (AwaitPulled): it describes them with the
// module's text before the edit, the baseline that tells the edit's new
// errors from older ones.

// maxPulledWaiters bounds the AwaitPulled asks held; beyond, one is
// answered at once.
const maxPulledWaiters = 64

// pulledWaiter is an AwaitPulled held until its documents are pulled.
type pulledWaiter struct {
	uris []string
	to   *actor.PID
}

// onAwaitPulled answers at once when the documents are pulled already
// (or the server pulls nothing now), else holds the ask.
func (a *serverActor) onAwaitPulled(ctx actor.Context, m *messages.AwaitPulled) {
	w := pulledWaiter{uris: m.URIs, to: ctx.Sender()}
	if a.pulledAll(w.uris) || len(a.pulledWaiters) >= maxPulledWaiters {
		a.answerPulled(ctx, w)
		return
	}
	a.pulledWaiters = append(a.pulledWaiters, w)
}

// pulledAll reports whether each document is pulled for its current
// version, or cannot be waited for: not open, or a server that is not
// running or pulls nothing.
func (a *serverActor) pulledAll(uris []string) bool {
	if !a.running() || len(a.providers()) == 0 {
		return true
	}
	for _, u := range uris {
		d := a.st.docs.Get(u)
		if d != nil && d.Open && !a.pulls.Pulled(u, d.Version) {
			return false
		}
	}
	return true
}

// answerPulledWaiters answers the asks whose documents are pulled now.
func (a *serverActor) answerPulledWaiters(ctx actor.Context) {
	if len(a.pulledWaiters) == 0 {
		return
	}
	a.pulledWaiters = slices.DeleteFunc(a.pulledWaiters, func(w pulledWaiter) bool {
		if !a.pulledAll(w.uris) {
			return false
		}
		a.answerPulled(ctx, w)
		return true
	})
}

func (a *serverActor) answerPulled(ctx actor.Context, w pulledWaiter) {
	if w.to != nil {
		ctx.Send(w.to, &messages.Pulled{})
	}
}
