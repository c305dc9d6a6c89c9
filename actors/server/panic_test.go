package server_test

import (
	"errors"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// panicNow makes the test middleware panic inside the server actor.
type panicNow struct{}

// TestActorPanicKillsProcessAndRestarts: when the server actor itself
// panics, its supervisor restarts it; the old process is killed, a new one
// starts and the document is re-opened from the durable state.
func TestActorPanicKillsProcessAndRestarts(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t)
	strategy := supervisor.NewStrategy(supervisor.Policy{BackoffBase: 10 * time.Millisecond, Jitter: -1})
	defer strategy.Stop()
	props := server.NewProps(server.Config{
		Server: srv, Root: t.TempDir(), Observers: []*actor.PID{h.Probe}, Reaper: h.Reaper, Policy: actortest.FastPolicy,
	}).Configure(actor.WithReceiverMiddleware(func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if _, ok := env.Message.(*panicNow); ok {
				panic(errors.New("test: induced panic"))
			}
			next(c, env)
		}
	}))
	childCh := make(chan *actor.PID, 1)
	parent := h.Sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if _, ok := c.Message().(*actor.Started); ok {
			childCh <- c.Spawn(props)
		}
	}, actor.WithSupervisor(strategy)))

	h.Track(parent)

	pid := <-childCh

	h.Open(pid, docURI, "kept across the panic\n")
	first := h.Status(pid)
	h.Sys.Root.Send(pid, &panicNow{})
	h.AwaitState(messages.StateRunning, 2, 30*time.Second)
	testenv.Eventually(t, 10*time.Second, "old process killed", func() bool { return !alive(first.PID) })
	if text, v := h.DocumentText(pid, docURI); text != "kept across the panic\n" || v != 1 {
		t.Errorf("document after actor restart = %q v%d", text, v)
	}
}

func alive(pid int) bool {
	for _, p := range testenv.Processes() {
		if p == pid {
			return true
		}
	}
	return false
}
