package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/daemon/codec"
	"github.com/agentlsp/agentlsp/messages"
)

// fileRecord appends every message an actor gets, with its sender, to a
// file.
type fileRecord struct {
	mu   sync.Mutex
	path string
	hold string
}

func (r *fileRecord) add(m any, sender *actor.PID) {
	b, name, err := codec.Marshal(m)
	if err != nil {
		return
	}
	line, _ := json.Marshal(recordLine{Type: name, Msg: b, Sender: sender.String()})
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

func (r *fileRecord) holding() bool {
	_, err := os.Stat(r.hold)
	return err == nil
}

// recordLine is one line of a record file.
type recordLine struct {
	Type   string `json:"type"`
	Msg    []byte `json:"msg"`
	Sender string `json:"sender"`
}

// fakeActor stands in for the router and the diagnostics actor. While the
// workspace holds (env.hold), requests and edits get no final answer (an
// Edit still gets its EditApplied).
type fakeActor struct {
	rec     *fileRecord
	version int32
}

func (a *fakeActor) Receive(ctx actor.Context) {
	m := ctx.Message()
	switch m.(type) {
	case actor.SystemMessage, actor.AutoReceiveMessage:
		return
	}
	a.rec.add(m, ctx.Sender())
	switch m := m.(type) {
	case *messages.FileRequest:
		if !a.rec.holding() {
			res, _ := json.Marshal(map[string]string{"path": m.Path, "method": m.Method})
			ctx.Respond(&messages.FileResponse{ID: m.ID, Results: []messages.ServerResult{
				{ServerKey: messages.ServerKey{ServerID: "fake", Root: "/"}, Result: res}}})
		}
	case *messages.SyncDocument:
		ctx.Respond(&messages.FileSynced{Path: m.Path, Text: m.Text, Servers: a.next()})
	case *messages.Edit:
		servers := a.next()
		if m.NotifyApplied {
			ctx.Respond(&messages.EditApplied{ID: m.ID, Path: m.Path, Servers: servers})
		}
		if !a.rec.holding() {
			ctx.Respond(&messages.EditResult{ID: m.ID, Status: messages.StatusFresh,
				Files: []messages.FileReport{{URI: m.Path, Status: messages.StatusFresh}}})
		}
	case *messages.EndSession:
		ctx.Respond(&messages.SessionEnded{Session: m.Session, Released: 1})
	case *messages.AwaitEdit:
		if !a.rec.holding() {
			ctx.Respond(&messages.EditResult{EditID: m.EditID, Status: messages.StatusFresh,
				Files: []messages.FileReport{{URI: m.URI, Status: messages.StatusFresh}}})
		}
	case *messages.Subscribe:
		ctx.Respond(&messages.DiagnosticBatch{Session: m.Session})
	case *messages.GetRouterStatus:
		ctx.Respond(&messages.RouterStatus{Servers: []messages.ServerInfo{{ServerKey: messages.ServerKey{ServerID: "fake"}}}})
	}
}

// next is the fake server's next document version.
func (a *fakeActor) next() []messages.ServerVersion {
	a.version++
	return []messages.ServerVersion{{ServerKey: messages.ServerKey{ServerID: "fake", Root: "/"}, Version: a.version}}
}

// recorded is a message a daemon's fake actors got, and its sender.
type recorded[T any] struct {
	msg    T
	sender string
}

// records returns what daemon pid's fake actors got, of type T.
func records[T any](t *testing.T, e *env, pid int) []T {
	t.Helper()
	var out []T
	for _, r := range recordsFrom[T](t, e, pid) {
		out = append(out, r.msg)
	}
	return out
}

// recordsFrom returns what daemon pid's fake actors got, of type T, with
// the senders.
func recordsFrom[T any](t *testing.T, e *env, pid int) []recorded[T] {
	t.Helper()
	f, err := os.Open(filepath.Join(e.workspace, "records-"+strconv.Itoa(pid)+".jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded[T]
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line recordLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			continue // a line being written
		}
		m, err := codec.Unmarshal(line.Type, line.Msg)
		if err != nil {
			t.Fatalf("record %s: %v", sc.Text(), err)
		}
		if v, ok := m.(T); ok {
			out = append(out, recorded[T]{msg: v, sender: line.Sender})
		}
	}
	return out
}
