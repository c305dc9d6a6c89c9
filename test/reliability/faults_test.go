package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/testenv"
)

var origin = agentlsp.Position{}

func hover(e *env, session string) error {
	return e.call(20*time.Second, "hover", func(ctx context.Context) error {
		_, err := e.rt.Session(session).Hover(ctx, e.files[0], origin)
		return err
	})
}

// waitRunning starts the fake server (a workspace/symbol request) and
// waits until it runs.
func waitRunning(t *testing.T, e *env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	testenv.Eventually(t, time.Minute, "the fake server running", func() bool {
		_ = e.rt.Probe(ctx) // an answer "still starting" is no error
		infos, err := e.rt.Servers(ctx)
		return err == nil && len(infos) == 1 && infos[0].State == messages.StateRunning
	})
}

func TestHangMidRequestTimesOut(t *testing.T) {
	e := newEnv(t, 1, func(s *config.Server, _ *agentlsp.Config) {
		s.RequestTimeout = config.Duration(500 * time.Millisecond)
	}, "--hang-on", "textDocument/hover")
	// Started first: under load its start took longer than the 500 ms
	// request timeout, and the hover was answered "still starting".
	waitRunning(t, e)
	if err := hover(e, "a"); !errors.Is(err, messages.ErrRequestTimeout) {
		t.Errorf("hover on a hung server = %v, want ErrRequestTimeout", err)
	}
	// The server is alive: other requests are served.
	if _, err := e.rt.Session("a").DocumentSymbols(context.Background(), e.files[0]); err != nil {
		t.Errorf("documentSymbol after the hang = %v", err)
	}
}

func TestProtocolFaultsAreCrashesThenRecovery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		edit  func(*config.Server, *agentlsp.Config)
	}{
		{"garbage frame", []string{"--garbage-on", "textDocument/hover"}, nil},
		{"oversized frame", []string{"--oversize-on", "textDocument/hover=4000000"},
			func(s *config.Server, _ *agentlsp.Config) { s.MaxMessageSize = 1 << 20 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 1, tc.edit, tc.flags...)
			err := hover(e, "a")
			if !errors.Is(err, messages.ErrServerCrashed) {
				t.Errorf("hover = %v, want ErrServerCrashed", err)
			}
			// The restarted server still answers hover the same way; other
			// requests are served.
			testenv.Eventually(t, 30*time.Second, "documentSymbol served after restart", func() bool {
				_, err := e.rt.Session("a").DocumentSymbols(context.Background(), e.files[0])
				return err == nil
			})
		})
	}
}

func TestOddButValidTraffic(t *testing.T) {
	e := newEnv(t, 1, nil, "--invalid-utf8-on", "textDocument/hover", "--unknown-response",
		"--server-request", "custom/unknownRequest={}", "--server-request", "workspace/codeLens/refresh=null")
	ans, err := e.rt.Session("a").Hover(context.Background(), e.files[0], origin)
	if err != nil {
		t.Fatalf("hover with invalid UTF-8 = %v", err)
	}
	if ans.Hover == nil || !utf8.ValidString(ans.Hover.Text) {
		t.Errorf("hover text = %+v, want valid UTF-8", ans.Hover)
	}
	if _, err := e.rt.Session("a").DocumentSymbols(context.Background(), e.files[0]); err != nil {
		t.Errorf("after odd traffic = %v", err)
	}
}

func TestStoppedReaderDoesNotDeadlock(t *testing.T) {
	e := newEnv(t, 4, nil, "--stop-reading-after", "6")
	big := strings.Repeat("# padding to fill the pipe\n", 20000)
	var wg sync.WaitGroup
	for i := range e.files {
		wg.Add(1)
		go func() { // one per file, joined below
			defer wg.Done()
			err := e.call(60*time.Second, "edit", func(ctx context.Context) error {
				_, err := e.rt.Session(fmt.Sprint(i)).Edit(ctx, e.files[i], big+fmt.Sprint(i))
				return err
			})
			if err != nil && !isTyped(err) {
				t.Errorf("edit %d = %v, want a result or a typed error", i, err)
			}
		}()
	}
	wg.Wait()
}

func TestFloodStaysBounded(t *testing.T) {
	e := newEnv(t, 1, nil, "--flood", "100000")
	res, err := e.rt.Session("a").Edit(context.Background(), e.files[0], "flood\n", agentlsp.WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	f := res.Files[0]
	if len(f.Diagnostics) != 20 || f.More != 99980 {
		t.Errorf("flood: %d shown + %d more, want 20 + 99980", len(f.Diagnostics), f.More)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 512<<20 {
		t.Errorf("heap in use after the flood = %d MiB", ms.HeapInuse>>20)
	}
}

func TestExitDuringInitializeIsBroken(t *testing.T) {
	e := newEnv(t, 1, func(s *config.Server, _ *agentlsp.Config) { s.MaxRestarts = 3 }, "--exit-on", "initialize")
	var err error
	testenv.Eventually(t, 30*time.Second, "broken after the crash budget", func() bool {
		err = hover(e, "a")
		return errors.Is(err, messages.ErrServerBroken)
	})
	if !strings.Contains(err.Error(), "exiting on initialize") {
		t.Errorf("broken error does not quote the server's stderr: %v", err)
	}
}

func TestShutdownIgnoredAndGrandchildren(t *testing.T) {
	e := newEnv(t, 1, nil, "--ignore-shutdown", "--grandchild")
	if err := hover(e, "a"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e.shutdown() // also checks that no process (grandchild included) is left
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Shutdown took %v with a server that ignores shutdown", d)
	}
}

func TestShutdownWithManyRequestsInFlight(t *testing.T) {
	e := newEnv(t, 1, nil, "--hang-on", "textDocument/hover")
	if _, err := e.rt.Session("a").DocumentSymbols(context.Background(), e.files[0]); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		go func() { errs <- hover(e, fmt.Sprint(i)) }() // each returns at Shutdown
	}
	testenv.Eventually(t, 20*time.Second, "64 hovers at the fake", func() bool {
		return strings.Count(strings.Join(testenv.Methods(testenv.Records(t, e.record)), " "), "textDocument/hover") == 64
	})
	e.shutdown()
	for i := 0; i < 64; i++ {
		if err := <-errs; !errors.Is(err, agentlsp.ErrShutdown) {
			t.Errorf("request in flight at Shutdown = %v, want ErrShutdown", err)
		}
	}
}

func TestBadConfigsAndFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		`{"servers": {"gopls": {"command": "gopls; rm -rf /"}}}`:                                   "servers.gopls.command",
		`{"servers": {"x": {"command": "x", "extensions": {".x": "x"}, "startupTimeout": "-1s"}}}`: "servers.x.startupTimeout",
		`{"servers": {"gopls": {"comand": "gopls"}}}`:                                              "comand",
		`{"servers": {`: "agentlsp.json:1",
	}
	for text, want := range cases {
		p := filepath.Join(dir, "agentlsp.json")
		os.WriteFile(p, []byte(text), 0o644)
		_, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: dir, ConfigFile: p})
		if err == nil || !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("config %s: Start error = %v, want one naming %q", text, err, want)
		}
	}
	e := newEnv(t, 1, nil)
	big := filepath.Join(e.ws, "big.py")
	os.WriteFile(big, make([]byte, paths.MaxFileSize+1), 0o644)
	if _, err := e.rt.Session("a").Hover(context.Background(), big, origin); !errors.Is(err, agentlsp.ErrFileTooLarge) {
		t.Errorf("hover on a file over the limit = %v, want ErrFileTooLarge", err)
	}
}
