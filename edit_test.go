package agentlsp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestEditOfABrokenServersFileAnswersTheSameEveryTime: an Edit of a file
// whose server is broken, because its binary is missing or because it
// spent its crash budget, answers a server_broken report naming the
// server and why, with the edit applied (the runtime keeps the text: Save
// writes it), on every call and from many goroutines at once. Before,
// the edit that met the server's break answered such a report, and every
// later one an error alone (the router failed its sync), which said
// nothing of the text.
func TestEditOfABrokenServersFileAnswersTheSameEveryTime(t *testing.T) {
	t.Run("binary missing", func(t *testing.T) {
		ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
		rt := ghostRuntime(t, ws)
		editsOfABrokenServer(t, rt, ws, "ghost", "build ghost-lsp")
	})
	t.Run("crash budget spent", func(t *testing.T) {
		ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
		rt, _ := fakeRuntimeIn(t, ws, func(s *config.Server) { s.MaxRestarts = 1 }, "--crash-after", "1", "--stderr", "fatal: no config")
		testenv.Eventually(t, time.Minute, "the server broken", func() bool {
			infos, err := rt.Servers(context.Background())
			if err == nil && len(infos) == 1 && infos[0].Broken {
				return true
			}
			_, _ = rt.Session("starter").Edit(context.Background(), "main.py", "x = 0\n", agentlsp.WithTimeout(time.Second))
			return false
		})
		editsOfABrokenServer(t, rt, ws, "fake", "fatal: no config")
	})
}

// editsOfABrokenServer edits main.py of a runtime whose server is broken,
// from one session then from 8 goroutines, checks each answer, then saves
// the last text and finds it on disk.
func editsOfABrokenServer(t *testing.T, rt *agentlsp.Runtime, ws, server, why string) {
	t.Helper()
	ctx := context.Background()
	check := func(call string, res *messages.EditResult, err error) {
		if err != nil {
			t.Errorf("%s: error %v, want a server_broken report", call, err)
			return
		}
		if res.Status != messages.StatusServerBroken || !res.Applied || len(res.Files) != 1 ||
			res.Files[0].Path != "main.py" || res.Files[0].Status != messages.StatusServerBroken ||
			!strings.HasPrefix(res.Files[0].Detail, server+": ") || !strings.Contains(res.Files[0].Detail, why) {
			t.Errorf("%s = %s applied %v, files %+v; want server_broken, applied, main.py's report naming %s and %q",
				call, res.Status, res.Applied, res.Files, server, why)
		}
	}
	s := rt.Session("agent")
	for i := range 3 {
		res, err := s.Edit(ctx, "main.py", fmt.Sprintf("x = %d\n", i))
		check(fmt.Sprintf("Edit %d", i), res, err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		// One caller each; joined below.
		wg.Go(func() {
			res, err := rt.Session(fmt.Sprintf("s%d", g%3)).Edit(ctx, "main.py", fmt.Sprintf("y = %d\n", g))
			check(fmt.Sprintf("goroutine %d", g), res, err)
		})
	}
	wg.Wait()
	if _, err := s.Edit(ctx, "main.py", "last = 1\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, "main.py"); err == nil || !strings.Contains(err.Error(), "saved (the disk has the text)") ||
		!errors.Is(err, messages.ErrServerBroken) {
		t.Errorf("Save = %v, want an error saying the disk has the text and no server was told", err)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "main.py")); string(got) != "last = 1\n" {
		t.Errorf("main.py on disk after Save = %q, want the last edit's text", got)
	}
}

// TestEditTextOverTheLimitIsRefused: an Edit whose text is larger than
// the files agentlsp reads (16 MiB) fails with ErrFileTooLarge naming the
// sizes, and the session goes on. Before, a 17 MiB text went to the
// server and was answered fresh; once saved, the file was refused as too
// large.
func TestEditTextOverTheLimitIsRefused(t *testing.T) {
	rt, _, _ := fakeRuntime(t)
	s := rt.Session("agent")
	ctx := context.Background()
	_, err := s.Edit(ctx, "main.py", "x = '"+strings.Repeat("a", 16<<20)+"'\n")
	if !errors.Is(err, agentlsp.ErrFileTooLarge) || !strings.Contains(err.Error(), "the limit is 16777216") {
		t.Errorf("Edit of a 16 MiB text = %v, want ErrFileTooLarge naming the limit", err)
	}
	if res, err := s.Edit(ctx, "main.py", "x = 1\n"); err != nil || res.Status != messages.StatusFresh {
		t.Errorf("Edit after it = %v, %v; want a fresh answer", res, err)
	}
}

// TestEditAfterEndIsRefused: an Edit of a session after its End sends
// nothing and says so (ErrSessionEnded, not applied); the session begun
// again by Runtime.Session edits. Before, the edit was applied and
// answered, then its document closed as the call returned: the text was
// gone, and a Save after it said "document not open".
func TestEditAfterEndIsRefused(t *testing.T) {
	rt, _, _ := fakeRuntime(t)
	ctx := context.Background()
	s := rt.Session("agent")
	if _, err := s.Edit(ctx, "main.py", "x = 1\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.End(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := s.Edit(ctx, "main.py", "x = 2\n")
	var ee *agentlsp.EditError
	if !errors.Is(err, agentlsp.ErrSessionEnded) || !errors.As(err, &ee) || ee.Applied {
		t.Errorf("Edit after End = %+v, %v; want an *EditError, not applied, of ErrSessionEnded", res, err)
	}
	again := rt.Session("agent")
	if _, err := again.Edit(ctx, "main.py", "x = 3\n"); err != nil {
		t.Errorf("Edit of the session begun again: %v", err)
	}
	if err := again.Save(ctx, "main.py"); err != nil {
		t.Errorf("Save of the session begun again: %v", err)
	}
}

// TestEditOvertakenByAnotherSessionSaysSo: session B edits a file while
// session A's edit of it still waits for its diagnostics; each answer's
// report of the file names the other session's edit (ChangedBy), since
// the answer may describe either text. Before, each was answered fresh
// with no word of the other: with gopls, the agent that wrote bbb() was
// told "undefined: aaa", the other agent's error, as its own.
func TestEditOvertakenByAnotherSessionSaysSo(t *testing.T) {
	rt, _, record := fakeRuntime(t, "--push-delay", "3s")
	ctx := context.Background()
	a, b := rt.Session("A"), rt.Session("B")
	if _, err := a.Diagnostics(ctx, []string{"main.py"}, agentlsp.WithTimeout(time.Minute)); err != nil {
		t.Fatal(err)
	}
	var ra *messages.EditResult
	var ea error
	done := make(chan struct{})
	go func() { // ends when A's edit is answered
		defer close(done)
		ra, ea = a.Edit(ctx, "main.py", "x = 1 # ERROR: from A\n", agentlsp.WithTimeout(time.Minute))
	}()
	testenv.Eventually(t, time.Minute, "A's change at the server", func() bool {
		return strings.Contains(strings.Join(testenv.Methods(testenv.Records(t, record)), " "), "textDocument/didChange")
	})
	rb, eb := b.Edit(ctx, "main.py", "x = 2 # ERROR: from B\n", agentlsp.WithTimeout(time.Minute))
	<-done
	for _, c := range []struct {
		session string
		res     *messages.EditResult
		err     error
		other   string
	}{{"A", ra, ea, "session B's edit of main.py"}, {"B", rb, eb, "session A's edit of main.py"}} {
		if c.err != nil {
			t.Errorf("%s's edit: %v", c.session, c.err)
			continue
		}
		if f := c.res.Files[0]; !slices.Contains(f.ChangedBy, c.other) {
			t.Errorf("%s's answer: main.py %s %+v changed by %q, want %q named", c.session, f.Status, f.Diagnostics, f.ChangedBy, c.other)
		}
	}
}
