package agentlsp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// TestPlainMessagesOfTheWrongKindAreRefused: an orchestrator that sends
// the runtime's actors a message they do not take (a value instead of a
// pointer, a message for the other actor, a string, a nil) with a sender
// gets a *messages.Refused naming the actor and the type, and a request
// without its method an error saying so; sent without a sender, such
// messages change nothing. Before, each request waited for its future's
// timeout; a nil *messages.Edit panicked the router, which protoactor
// restarted without its state (the session's edited document and the
// server were forgotten); and a nil sent with Send made the router's
// mailbox loop for good (a core at 100%, Shutdown timed out).
func TestPlainMessagesOfTheWrongKindAreRefused(t *testing.T) {
	rt, ws, _ := fakeRuntime(t)
	ctx := context.Background()
	if _, err := rt.Session("agent").Edit(ctx, "main.py", "x = 5\n"); err != nil {
		t.Fatal(err)
	}
	root := rt.System().Root
	actors := map[string]*actor.PID{"router": rt.Router(), "diagnostics actor": rt.Diagnostics()}
	for _, tc := range []struct {
		to   string
		msg  any
		want string
	}{
		{"router", nil, "the router does not take a nil message"},
		{"router", "hello", "the router does not take string"},
		{"router", messages.Edit{ID: 1, Session: "agent", Path: "main.py"}, "messages are sent as pointers: *messages.Edit"},
		{"router", (*messages.Edit)(nil), "the router does not take a nil *messages.Edit"},
		{"router", (*messages.FileRequest)(nil), "a nil *messages.FileRequest"},
		{"router", &messages.GetDiagnostics{}, "the router does not take *messages.GetDiagnostics"},
		{"diagnostics actor", &messages.Edit{ID: 2, Session: "agent", Path: "main.py"}, "the diagnostics actor does not take *messages.Edit"},
		{"diagnostics actor", (*messages.AwaitEdit)(nil), "a nil *messages.AwaitEdit"},
		{"diagnostics actor", (*messages.Subscribe)(nil), "a nil *messages.Subscribe"},
	} {
		res, err := root.RequestFuture(actors[tc.to], tc.msg, time.Minute).Result()
		r, ok := res.(*messages.Refused)
		if err != nil || !ok || !errors.Is(r.Err, messages.ErrUnknownMessage) || !strings.Contains(r.Err.Error(), tc.want) {
			t.Errorf("%T to the %s: reply %#v, %v; want a *messages.Refused saying %q", tc.msg, tc.to, res, err, tc.want)
		}
	}
	for _, msg := range []any{&messages.FileRequest{ID: 3, Session: "agent", Path: "main.py"}, &messages.WorkspaceRequest{ID: 4}} {
		res, err := root.RequestFuture(rt.Router(), msg, time.Minute).Result()
		fr, ok := res.(*messages.FileResponse)
		if err != nil || !ok || fr.Err == nil || !strings.Contains(fr.Err.Error(), "needs a Method") {
			t.Errorf("%T without a method: reply %#v, %v; want an error saying it needs one", msg, res, err)
		}
	}
	for _, pid := range actors {
		for _, msg := range []any{nil, (*messages.Edit)(nil), (*messages.AwaitEdit)(nil), "hello"} {
			root.Send(pid, msg)
		}
	}
	infos, err := rt.Servers(ctx)
	if err != nil || len(infos) != 1 || infos[0].OpenFiles != 1 || infos[0].Incarnation != 1 {
		t.Errorf("servers after the messages = %+v, %v; want the one server, its one document open", infos, err)
	}
	if err := rt.Session("agent").Save(ctx, "main.py"); err != nil {
		t.Errorf("Save of the edit after the messages: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "main.py")); string(got) != "x = 5\n" {
		t.Errorf("main.py after Save = %q, want the edit's text", got)
	}
}
