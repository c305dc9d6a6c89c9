package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/actortest"
)

// TestWaitingRequestsServedWhenSlotsFree: requests beyond the server's
// slots wait, in order, and are sent as slots free.
func TestWaitingRequestsServedWhenSlotsFree(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--delay", "textDocument/hover=50ms")
	srv.MaxInFlight = 2
	pid := h.Spawn(srv, t.TempDir(), nil)
	for i, f := range askHovers(h, pid, 8) {
		res, err := f.Result()
		if err != nil || res.(*messages.Response).Err != nil {
			t.Errorf("request %d = %v, %v; want served after waiting for a slot", i, res, err)
		}
	}
}

// TestResponseTookIsTheServersOwnTime: a response says how long the server
// itself took, from the request's hand-over to the connection to its
// answer, without the time it waited for a slot: with one slot and a
// server that answers in 50 ms, each took at least 50 ms and, one after
// the other, all of them together fit in the last one's wait.
func TestResponseTookIsTheServersOwnTime(t *testing.T) {
	h := actortest.New(t)
	srv, _ := actortest.FakeServer(t, "--delay", "textDocument/hover=50ms")
	srv.MaxInFlight = 1
	pid := h.Spawn(srv, t.TempDir(), nil)
	h.AwaitState(messages.StateRunning, 1, 30*time.Second)
	start := time.Now()
	var sum time.Duration
	for i, f := range askHovers(h, pid, 3) {
		res, err := f.Result()
		if err != nil || res.(*messages.Response).Err != nil {
			t.Fatalf("request %d = %v, %v", i, res, err)
		}
		took := res.(*messages.Response).Took
		if took < 50*time.Millisecond {
			t.Errorf("request %d took %v by its response; the server alone takes 50ms", i, took)
		}
		sum += took
	}
	if all := time.Since(start); sum > all {
		t.Errorf("the responses' times add up to %v, more than the %v all three took: the wait for a slot was counted", sum, all)
	}
}

// askHovers sends n hover requests to the server actor at once and
// returns the futures of their responses, in order.
func askHovers(h *actortest.Harness, pid *actor.PID, n int) []*actor.Future {
	raw, _ := json.Marshal(map[string]any{})
	futures := make([]*actor.Future, n)
	for i := range futures {
		futures[i] = h.Sys.Root.RequestFuture(pid, &messages.Request{ID: actortest.RequestIDs.Add(1), Method: "textDocument/hover", Params: raw}, 30*time.Second)
	}
	return futures
}
