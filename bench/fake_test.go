package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/actors/diagnostics"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/router"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
	"github.com/agentlsp/agentlsp/transport"
)

// Shared set-up of the benchmarks: a workspace with one project root
// served by the fake language server (the test binary re-executed), wired
// as the bare transport, the actors, or the whole runtime.

const (
	fakeExt    = ".fake"
	fakeMarker = "fakeroot.toml"
	// askTimeout bounds one actor round trip in the benchmarks.
	askTimeout = 30 * time.Second
)

// fakeWorkspace creates a workspace holding one project root with one
// file of the given number of lines, and returns the workspace (symlinks
// resolved) and the file's path.
func fakeWorkspace(tb testing.TB, lines int) (ws, file string) {
	tb.Helper()
	ws, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, fakeMarker), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	file = filepath.Join(ws, "doc"+fakeExt)
	if err := os.WriteFile(file, []byte(fakeText(lines, 0)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return ws, file
}

// fakeText is a document of n lines whose middle line carries edit number
// edit; odd edits put an ERROR: marker there, which the fake reports.
func fakeText(n, edit int) string {
	var b strings.Builder
	for i := range n {
		if i == n/2 {
			if edit%2 == 1 {
				fmt.Fprintf(&b, "value = %d ERROR: broken %d\n", edit, edit)
			} else {
				fmt.Fprintf(&b, "value = %d\n", edit)
			}
			continue
		}
		fmt.Fprintf(&b, "line %d of the benchmark document, with some ordinary text\n", i)
	}
	return b.String()
}

// fakeRegistry serves .fake files with the fake server run with flags.
func fakeRegistry(tb testing.TB, flags ...string) *config.Registry {
	cmd, args, env := testenv.FakeServer(tb, flags...)
	return config.RegistryOf(&config.Server{
		ID: "fake", Command: cmd, Args: args, Env: env,
		Extensions: map[string]string{fakeExt: "fake"}, RootMarkers: []string{fakeMarker},
	})
}

// startRuntime starts a runtime on ws with the fake server; it is shut
// down when the benchmark ends.
func startRuntime(tb testing.TB, ws string, settle time.Duration, flags ...string) *agentlsp.Runtime {
	tb.Helper()
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{
		Workspace: ws, Registry: fakeRegistry(tb, flags...), Settle: settle,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Shutdown(ctx); err != nil {
			tb.Errorf("Shutdown: %v", err)
		}
	})
	return rt
}

// pipeline is a router and a diagnostics actor wired as the runtime wires
// them, for benchmarks that speak messages.
type pipeline struct {
	sys    *actor.ActorSystem
	router *actor.PID
	diag   *actor.PID
}

// startPipeline spawns the actors on ws with the fake server; they are
// stopped, and their goroutines joined, when the benchmark ends.
func startPipeline(tb testing.TB, ws string, flags ...string) *pipeline {
	sys := lifecycle.NewSystem(nil)
	reaper := &lifecycle.Reaper{}
	diag := sys.Root.Spawn(diagnostics.NewProps(diagnostics.Config{}))
	router := sys.Root.Spawn(router.NewProps(router.Config{
		Workspace: ws, Registry: fakeRegistry(tb, flags...), Reaper: reaper, Observers: []*actor.PID{diag}, Diagnostics: diag,
	}))
	tb.Cleanup(func() {
		_ = sys.Root.StopFuture(router).Wait()
		_ = sys.Root.StopFuture(diag).Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if !reaper.Wait(ctx) {
			tb.Error("actors' goroutines did not end")
		}
		sys.Shutdown()
	})
	return &pipeline{sys: sys, router: router, diag: diag}
}

// ask sends msg to pid and returns the reply; a lost reply fails tb.
func (p *pipeline) ask(tb testing.TB, pid *actor.PID, msg any) any {
	res, err := p.sys.Root.RequestFuture(pid, msg, askTimeout).Result()
	if err != nil {
		tb.Fatalf("%T: %v", msg, err)
	}
	return res
}

// sync sends one SyncDocument and fails tb on any error.
func (p *pipeline) sync(tb testing.TB, path string, action messages.SyncAction, text string) *messages.FileSynced {
	fs := p.ask(tb, p.router, &messages.SyncDocument{Session: "bench", Path: path, Action: action, Text: text}).(*messages.FileSynced)
	if fs.Err != nil {
		tb.Fatal(fs.Err)
	}
	for _, sv := range fs.Servers {
		if sv.Err != nil {
			tb.Fatal(sv.Err)
		}
	}
	return fs
}

// fileRequest sends one FileRequest and fails tb unless every server
// answered.
func (p *pipeline) fileRequest(tb testing.TB, id uint64, path, method string, params json.RawMessage) {
	res := p.ask(tb, p.router, &messages.FileRequest{ID: id, Path: path, Method: method, Params: params}).(*messages.FileResponse)
	if res.Err != nil {
		tb.Fatal(res.Err)
	}
	for _, r := range res.Results {
		if r.Err != nil {
			tb.Fatal(r.Err)
		}
	}
}

// directConn starts the fake with flags on a bare transport connection and
// performs the initialize handshake; it is killed when the benchmark ends.
func directConn(tb testing.TB, onEvent func(string, json.RawMessage), flags ...string) *transport.Conn {
	tb.Helper()
	cmd, args, env := testenv.FakeServer(tb, flags...)
	var envList []string
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	c, err := transport.Start(context.Background(), transport.Options{Command: cmd, Args: args, Env: envList, OnEvent: onEvent})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Kill(); <-c.Done() })
	if _, err := c.Call(context.Background(), "initialize", map[string]any{"capabilities": map[string]any{}}); err != nil {
		tb.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		tb.Fatal(err)
	}
	return c
}
