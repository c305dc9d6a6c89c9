package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

func TestClientsAreNamespaced(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	res := c.ask(t, c.Router, &messages.FileRequest{ID: 7, Path: "a.go", Method: "textDocument/hover"}).(*messages.FileResponse)
	if res.ID != 7 || len(res.Results) != 1 || !strings.Contains(string(res.Results[0].Result), `"path":"a.go"`) {
		t.Errorf("FileResponse = %+v, want ID 7 and the fake's result", res)
	}
	synced := c.ask(t, c.Router, &messages.SyncDocument{Session: "agent", Path: "a.go", Action: messages.SyncChange, Text: "x"}).(*messages.FileSynced)
	if synced.Text != "x" {
		t.Errorf("FileSynced = %+v", synced)
	}
	e.startClient() // the same session and request id from another process
	pid := e.daemon(0)
	var ids []uint64
	for _, r := range records[*messages.FileRequest](t, e, pid) {
		ids = append(ids, r.ID)
	}
	if len(ids) != 2 || ids[0] == ids[1] || ids[0]&idMask != 7 || ids[1]&idMask != 7 {
		t.Errorf("the router saw ids %v, want two distinct ids ending in 7", ids)
	}
	var sessions []string
	for _, s := range records[*messages.SyncDocument](t, e, pid) {
		sessions = append(sessions, s.Session)
	}
	if len(sessions) != 2 || sessions[0] == sessions[1] || !strings.HasSuffix(sessions[0], "/agent") || !strings.HasSuffix(sessions[1], "/agent") {
		t.Errorf("the router saw sessions %v, want one per client, each ending in /agent", sessions)
	}
	if e.daemon(1) != 0 {
		t.Error("two clients started two daemons")
	}
}

func TestClientKilledEndsItsSessions(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	if err := e.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	cmd, _ := e.startClient()
	cmd.Process.Signal(syscall.SIGKILL)
	pid := e.daemon(0)
	testenv.Eventually(t, 20*time.Second, "EndSession of the killed client's session", func() bool {
		for _, m := range records[*messages.EndSession](t, e, pid) {
			if strings.HasSuffix(m.Session, "/agent") {
				return true
			}
		}
		return false
	})
	// The fake diagnostics actor records on its own goroutine, in no order
	// with the fake router's EndSession.
	var got []*messages.Unsubscribe
	testenv.Eventually(t, 20*time.Second, "Unsubscribe of the killed client's session", func() bool {
		got = records[*messages.Unsubscribe](t, e, pid)
		return len(got) > 0
	})
	if len(got) != 1 || !strings.HasSuffix(got[0].Session, "/agent") {
		t.Errorf("diagnostics got Unsubscribe %+v, want the killed client's session once", got)
	}
}

func TestDaemonKilledCallsAnsweredByTheNext(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	synced := c.ask(t, c.Router, &messages.SyncDocument{Session: "s", Path: "a.go", Action: messages.SyncChange, Text: "edited"}).(*messages.FileSynced)
	if synced.Err != nil {
		t.Fatal(synced.Err)
	}
	batches := make(chan *messages.DiagnosticBatch, 4)
	sub := c.System.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(c.Diagnostics, &messages.Subscribe{Session: "s"})
		case *messages.DiagnosticBatch:
			batches <- m
		}
	}))
	defer c.System.Root.Stop(sub)
	if b := <-batches; b.Session != "s" {
		t.Errorf("batch for session %q, want s (the client's own name)", b.Session)
	}
	e.hold(true)
	fut := c.System.Root.RequestFuture(c.Router, &messages.FileRequest{ID: 3, Path: "a.go", Method: "m"}, 30*time.Second)
	first := e.daemon(0)
	testenv.Eventually(t, 10*time.Second, "the request reaches the first daemon", func() bool {
		return len(records[*messages.FileRequest](t, e, first)) == 1
	})
	e.hold(false)
	e.kill(first)
	res, err := fut.Result()
	if err != nil {
		t.Fatalf("the request in flight when the daemon was killed: %v", err)
	}
	if r := res.(*messages.FileResponse); r.ID != 3 || len(r.Results) != 1 {
		t.Errorf("FileResponse = %+v, want the next daemon's answer", r)
	}
	second := e.daemon(1)
	var replayed bool
	for _, s := range records[*messages.SyncDocument](t, e, second) {
		replayed = replayed || s.Action == messages.SyncChange && s.Text == "edited" && strings.HasSuffix(s.Session, "/s")
	}
	if !replayed {
		t.Errorf("the next daemon did not get the session's edited text: %+v", records[*messages.SyncDocument](t, e, second))
	}
	select {
	case b := <-batches:
		if b.Session != "s" {
			t.Errorf("batch for session %q after re-attaching, want s", b.Session)
		}
	case <-time.After(10 * time.Second):
		t.Error("no batch from the next daemon: the subscription was not renewed")
	}
}

func TestEditInFlightIsReplayed(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	uri := "file://" + e.workspace + "/a.go"
	c.System.Root.Send(c.Diagnostics, &messages.EditStarted{EditID: 5, Session: "s", URI: uri})
	synced := c.ask(t, c.Router, &messages.SyncDocument{Session: "s", Path: "a.go", Action: messages.SyncChange, Text: "new"}).(*messages.FileSynced)
	e.hold(true)
	fut := c.System.Root.RequestFuture(c.Diagnostics, &messages.AwaitEdit{EditID: 5, Session: "s", URI: uri,
		Servers: synced.Servers}, 30*time.Second)
	first := e.daemon(0)
	testenv.Eventually(t, 10*time.Second, "the wait reaches the first daemon", func() bool {
		return len(records[*messages.AwaitEdit](t, e, first)) == 1
	})
	e.hold(false)
	e.kill(first)
	res, err := fut.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r := res.(*messages.EditResult); r.EditID != 5 || r.Status != messages.StatusFresh {
		t.Errorf("EditResult = %+v, want edit 5, fresh", r)
	}
	second := e.daemon(1)
	started := records[*messages.EditStarted](t, e, second)
	syncs := records[*messages.SyncDocument](t, e, second)
	awaits := records[*messages.AwaitEdit](t, e, second)
	if len(started) != 1 || len(awaits) != 1 || len(syncs) != 1 || syncs[0].Text != "new" || awaits[0].Servers[0].Version != 1 {
		t.Errorf("the next daemon got %+v, %+v and %+v; want the edit replayed: EditStarted, its text, AwaitEdit with the new version", started, syncs, awaits)
	}
}

func TestWrongTokensAreRefused(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	other := e.sibling()
	for _, x := range []*env{e, other} {
		if err := x.start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	d := e.entry()
	tests := []struct {
		name, token string
	}{
		{"no token", ""},
		{"wrong token", "0123"},
		{"another workspace's token", other.entry().Token},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := connectRaw(d.Address, tc.token); status.Code(err) != codes.Unauthenticated {
				t.Errorf("connecting with %s = %v, want Unauthenticated", tc.name, err)
			}
		})
	}
	if err := connectRaw(d.Address, d.Token); err != nil {
		t.Errorf("connecting with the daemon's token = %v, want accepted", err)
	}
	testenv.Eventually(t, 5*time.Second, "the refusals logged with the peer address", func() bool {
		log, _ := os.ReadFile(e.files.Log())
		return strings.Count(string(log), "connection refused") == 3 && strings.Contains(string(log), "peer=127.0.0.1:")
	})
}

// connectRaw opens protoactor's stream to addr with a token and returns
// the error of its first receive (nil when the daemon answered).
func connectRaw(addr, token string) error {
	conn, err := grpc.Dial(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, authHeader, "Bearer "+token)
	}
	stream, err := remote.NewRemotingClient(conn).Receive(ctx)
	if err != nil {
		return err
	}
	// A refused stream fails Send with io.EOF; Recv has the status.
	_ = stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_ConnectRequest{
		ConnectRequest: &remote.ConnectRequest{ConnectionType: &remote.ConnectRequest_ServerConnection{
			ServerConnection: &remote.ServerConnection{SystemId: "raw", Address: "127.0.0.1:1"}}}}})
	_, err = stream.Recv()
	stream.CloseSend()
	return err
}

func TestOtherVersionIsRefused(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	d := e.entry()
	front := actor.NewPID(d.Address, d.Front)
	res := c.ask(t, front, &messages.Attach{Version: "other", LinkAddress: "127.0.0.1:1", LinkID: "x"})
	if a := res.(*messages.Attached); !errors.Is(a.Err, messages.ErrVersionMismatch) {
		t.Errorf("Attach of another version = %v, want ErrVersionMismatch", a.Err)
	}
	st := c.ask(t, front, &messages.GetDaemonStatus{}).(*messages.DaemonStatus)
	if len(st.Clients) != 1 || len(st.Servers) != 1 || st.Workspace != e.workspace || st.PID != d.PID {
		t.Errorf("DaemonStatus = %+v, want one client and the fake server", st)
	}
}

// TestClientOfAnotherVersionIsToldWhichRuns: a client whose agentlsp
// command starts a daemon of another version (a Go program built with a
// released module, the command a development build) never finds one of
// its own; its error names both versions and the daemon that runs.
// Before, it said only that no daemon registered for a hash.
func TestClientOfAnotherVersionIsToldWhichRuns(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.start(ctx); err != nil {
		t.Fatal(err)
	}
	started := func(context.Context) error { return nil } // the command's daemon runs already
	_, err := Dial(ctx, DialConfig{Workspace: e.workspace, Version: "v9.9.9", Start: started, Reaper: &lifecycle.Reaper{}})
	want := fmt.Sprintf("this client is version v9.9.9, the daemon that serves %s is version %s (pid %d)",
		e.workspace, testVersion, e.daemon(0))
	if !errors.Is(err, ErrStartFailed) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("Dial of another version = %v, want ErrStartFailed saying %q", err, want)
	}
}

func TestIdleDaemonExits(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	e.idle = 300 * time.Millisecond
	c := e.dial()
	pid := e.daemon(0)
	// Attached, it stays: three idle periods.
	deadline := time.Now().Add(3 * e.idle)
	for time.Now().Before(deadline) {
		c.ask(t, c.Router, &messages.GetRouterStatus{})
		if !alive(pid) {
			t.Fatal("the daemon exited while a client was attached")
		}
		time.Sleep(e.idle / 3)
	}
	c.close()
	testenv.Eventually(t, 10*time.Second, "the idle daemon exits", func() bool { return !alive(pid) })
	if _, err := e.files.Find(); err == nil {
		t.Error("the idle daemon left its entry")
	}
}

// caller is an actor that sends the daemon's router what it is told to,
// as itself, and hands on every reply.
func caller(c *testClient, replies chan<- any) *actor.PID {
	return c.System.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started, actor.SystemMessage, actor.AutoReceiveMessage:
		case *send:
			ctx.Request(c.Router, m.msg)
		default:
			replies <- m
		}
	}))
}

type send struct{ msg any }

// next returns the next reply, or fails after a while.
func next(t *testing.T, replies <-chan any) any {
	t.Helper()
	select {
	case r := <-replies:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no reply")
		return nil
	}
}

func TestEditMessageInFlightIsSentAgain(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	replies := make(chan any, 8)
	pid := caller(c, replies)
	defer c.System.Root.Stop(pid)
	e.hold(true)
	c.System.Root.Send(pid, &send{&messages.Edit{ID: 9, Session: "s", Path: "a.go", Text: "new", NotifyApplied: true}})
	if a, ok := next(t, replies).(*messages.EditApplied); !ok || a.ID != 9 {
		t.Fatalf("first reply %+v, want EditApplied of edit 9", a)
	}
	first := e.daemon(0)
	e.hold(false)
	e.kill(first)
	if r, ok := next(t, replies).(*messages.EditResult); !ok || r.ID != 9 || r.Status != messages.StatusFresh {
		t.Fatalf("second reply %+v, want edit 9's EditResult, fresh (and EditApplied only once)", r)
	}
	second := e.daemon(1)
	edits := records[*messages.Edit](t, e, second)
	if len(edits) != 1 || edits[0].Text != "new" || !strings.HasSuffix(edits[0].Session, "/s") {
		t.Errorf("the next daemon got the edits %+v; want edit 9 sent again whole", edits)
	}
	if syncs := records[*messages.SyncDocument](t, e, second); len(syncs) != 0 {
		t.Errorf("the next daemon got %+v besides the edit, which sets the document itself", syncs)
	}
}

func TestCancelsGoAsTheCallsTheyCancel(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	replies := make(chan any, 8)
	pid := caller(c, replies)
	defer c.System.Root.Stop(pid)
	e.hold(true)
	c.System.Root.Send(pid, &send{&messages.FileRequest{ID: 4, Path: "a.go", Method: "m"}})
	c.System.Root.Send(pid, &send{&messages.Edit{ID: 6, Session: "s", Path: "a.go", Text: "x"}})
	first := e.daemon(0)
	testenv.Eventually(t, 10*time.Second, "the request and the edit reach the daemon", func() bool {
		return len(records[*messages.FileRequest](t, e, first)) == 1 && len(records[*messages.Edit](t, e, first)) == 1
	})
	c.System.Root.Send(pid, &send{&messages.Cancel{ID: 4}})
	c.System.Root.Send(pid, &send{&messages.CancelEdit{ID: 6}})
	testenv.Eventually(t, 10*time.Second, "the cancels reach the daemon", func() bool {
		return len(records[*messages.Cancel](t, e, first)) == 1 && len(records[*messages.CancelEdit](t, e, first)) == 1
	})
	req, cancel := recordsFrom[*messages.FileRequest](t, e, first)[0], recordsFrom[*messages.Cancel](t, e, first)[0]
	if cancel.sender != req.sender || cancel.msg.ID != req.msg.ID {
		t.Errorf("Cancel %d from %s, request %d from %s: the router would not find the request", cancel.msg.ID, cancel.sender, req.msg.ID, req.sender)
	}
	edit, cancelEdit := recordsFrom[*messages.Edit](t, e, first)[0], recordsFrom[*messages.CancelEdit](t, e, first)[0]
	if cancelEdit.sender != edit.sender || cancelEdit.msg.ID != edit.msg.ID {
		t.Errorf("CancelEdit %d from %s, edit %d from %s: the router would not find the edit", cancelEdit.msg.ID, cancelEdit.sender, edit.msg.ID, edit.sender)
	}
	// The link forgot both calls: the next daemon gets neither again.
	e.hold(false)
	e.kill(first)
	c.System.Root.Send(pid, &send{&messages.FileRequest{ID: 5, Path: "a.go", Method: "m"}})
	if r, ok := next(t, replies).(*messages.FileResponse); !ok || r.ID != 5 {
		t.Fatalf("reply %+v, want request 5's answer (nothing for the cancelled calls)", r)
	}
	second := e.daemon(1)
	if reqs, edits := records[*messages.FileRequest](t, e, second), records[*messages.Edit](t, e, second); len(reqs) != 1 || len(edits) != 0 {
		t.Errorf("the next daemon got the requests %+v and the edits %+v; want request 5 only", reqs, edits)
	}
}

// TestMessagesTheLinkCannotCarryAreRefused: a client's router (the link)
// sent a message the daemon cannot take (a string, a value instead of a
// pointer, a nil) answers a *messages.Refused at once, and a nil sent
// without a sender leaves it working. Before, the link handed them to the
// codec, which could not write them, and the caller waited for good; a
// nil sent with Send made the link's mailbox loop on the sender's
// goroutine for good.
func TestMessagesTheLinkCannotCarryAreRefused(t *testing.T) {
	if !isolate(t) {
		return
	}
	e := newEnv(t)
	c := e.dial()
	replies := make(chan any, 8)
	pid := caller(c, replies)
	defer c.System.Root.Stop(pid)
	for _, msg := range []any{"hello", messages.FileRequest{ID: 1, Path: "a.go", Method: "m"}, (*messages.Edit)(nil), nil} {
		c.System.Root.Send(pid, &send{msg})
		if r, ok := next(t, replies).(*messages.Refused); !ok || !errors.Is(r.Err, messages.ErrUnknownMessage) ||
			!strings.Contains(r.Err.Error(), "the router does not take") {
			t.Errorf("reply to %#v = %#v, want a *messages.Refused by the router", msg, r)
		}
	}
	done := make(chan struct{})
	go func() { // ends once Send returns
		defer close(done)
		c.System.Root.Send(c.Router, nil)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Send of a nil to the link did not return")
	}
	c.System.Root.Send(pid, &send{&messages.FileRequest{ID: 5, Path: "a.go", Method: "m"}})
	if r, ok := next(t, replies).(*messages.FileResponse); !ok || r.ID != 5 {
		t.Errorf("reply after the refused messages = %#v, want request 5's FileResponse", r)
	}
}
