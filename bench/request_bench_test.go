package bench

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/server"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/agentlsp/agentlsp/transport"
)

// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

var hoverParams = json.RawMessage(`{"textDocument":{"uri":"file:///x.fake"},"position":{"line":0,"character":0}}`)

// BenchmarkRequestDirect is the floor: a hover round trip over a bare
// transport connection to the fake server.
func BenchmarkRequestDirect(b *testing.B) {
	cmd, args, env := testenv.FakeServer(b)
	c, err := transport.Start(context.Background(), transport.Options{Command: cmd, Args: args, Env: []string{"AGENTLSP_TESTENV_FAKELSP=" + env["AGENTLSP_TESTENV_FAKELSP"]}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { c.Kill(); <-c.Done() }()
	ctx := context.Background()
	if _, err := c.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, "textDocument/hover", hoverParams); err != nil {
			b.Fatal(err)
		}
	}
}

// serverActor starts a server actor on the fake and returns a function
// that sends it one hover and waits for the answer; the actor, its
// process and the actor system are stopped at the end of the benchmark.
func serverActor(b *testing.B) func() error {
	sys := lifecycle.NewSystem(nil)
	reaper := &lifecycle.Reaper{}
	cmd, args, env := testenv.FakeServer(b)
	pid := sys.Root.Spawn(server.NewProps(server.Config{
		Server: &config.Server{ID: "fake", Command: cmd, Args: args, Env: env},
		Root:   b.TempDir(), Reaper: reaper,
	}))
	b.Cleanup(func() {
		_ = sys.Root.StopFuture(pid).Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reaper.Wait(ctx)
		sys.Shutdown()
	})
	var ids atomic.Uint64
	ask := func() error {
		res, err := sys.Root.RequestFuture(pid, &messages.Request{ID: ids.Add(1), Method: "textDocument/hover", Params: hoverParams}, 30*time.Second).Result()
		if err != nil {
			return err
		}
		return res.(*messages.Response).Err
	}
	if err := ask(); err != nil { // waits for the handshake
		b.Fatal(err)
	}
	return ask
}

// BenchmarkRequestServerActor is the same round trip through the server
// actor: its overhead is the difference to BenchmarkRequestDirect.
func BenchmarkRequestServerActor(b *testing.B) {
	ask := serverActor(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := ask(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequestServerActorParallel: many callers share one server actor.
func BenchmarkRequestServerActorParallel(b *testing.B) {
	ask := serverActor(b)
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := ask(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
