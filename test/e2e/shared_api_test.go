package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestDialSameAPI: a runtime from agentlsp.Dial answers an edit and
// navigation as an embedded runtime does, its errors still match the
// sentinels, and Shutdown detaches without stopping the daemon.
func TestDialSameAPI(t *testing.T) {
	ws := sharedWorkspace(t)
	bin := buildAgentlsp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	defer stopDaemons(t, bin)
	shared, err := agentlsp.Dial(ctx, ws, daemon.WithCommand(bin), daemon.WithVersion("devel"))
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Shutdown(context.Background())
	embedded, err := agentlsp.Start(ctx, agentlsp.Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer embedded.Shutdown(context.Background())

	if err := os.WriteFile(filepath.Join(ws, "notes.xyz"), []byte("no server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "gonav", "total.go")
	orig, _ := os.ReadFile(file)
	broken := string(orig) + "\nvar broken int = \"s\"\n"
	type result struct {
		edit  []messages.Diagnostic
		hover string
		defs  int
	}
	run := func(rt *agentlsp.Runtime) result {
		s := rt.Session("agent")
		var r result
		testenv.Eventually(t, 2*time.Minute, "fresh diagnostics of the edit", func() bool {
			res, err := s.Edit(ctx, file, broken, agentlsp.WithAll())
			if err != nil {
				t.Fatal(err)
			}
			r.edit = res.Files[0].Diagnostics
			return res.Status == messages.StatusFresh
		})
		h, err := s.Hover(ctx, filepath.Join(ws, "gonav", "report.go"), agentlsp.Position{Line: 6, Character: 28})
		if err != nil {
			t.Fatal(err)
		}
		if h.Hover != nil {
			r.hover = h.Hover.Text
		}
		d, err := s.Definition(ctx, filepath.Join(ws, "gonav", "report.go"), agentlsp.Position{Line: 6, Character: 28})
		if err != nil {
			t.Fatal(err)
		}
		r.defs = len(d.Locations)
		_, err = s.Hover(ctx, filepath.Join(ws, "notes.xyz"), agentlsp.Position{})
		var pe *messages.PathError
		if !errors.Is(err, messages.ErrNoServer) || !errors.As(err, &pe) || pe.Path != filepath.Join(ws, "notes.xyz") {
			t.Errorf("Hover on notes.xyz = %#v, want a *PathError of kind ErrNoServer", err)
		}
		return r
	}
	want, got := run(embedded), run(shared)
	if !cmp.Equal(got, want, cmp.AllowUnexported(result{})) || len(got.edit) != 1 {
		t.Errorf("through the daemon %+v, embedded %+v: want the same, with one error", got, want)
	}
	if err := shared.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the daemon sees its client go", func() bool {
		d := daemonStatus(t, bin)
		return len(d) == 1 && d[0].Clients == 0
	})
}

// TestSharedDaemonOverHTTP: agentlsp serve --http serves MCP over
// streamable HTTP to clients with the token, one session each, and
// refuses the others.
func TestSharedDaemonOverHTTP(t *testing.T) {
	ws := sharedWorkspace(t)
	bin := buildAgentlsp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	serve := exec.Command(bin, "serve", "--workspace", ws, "--http", "127.0.0.1:0", "--idle", "0")
	serve.Stderr = raceWatch(t)
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}()
	var url, token string
	testenv.Eventually(t, time.Minute, "the daemon serves HTTP", func() bool {
		d := daemonStatus(t, bin)
		if len(d) == 1 {
			url, token = d[0].HTTP, d[0].Token
		}
		return url != ""
	})
	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("a request with token %q: %s, want 401", tok, res.Status)
		}
	}
	hover := lspCall("hover", "gonav/report.go", 7, "Total")
	var answers []string
	for range 2 {
		client := sdk.NewClient(&sdk.Implementation{Name: "e2e-http", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearer{token: token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		a, err := answer(ctx, cs, hover)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	if answers[0] != answers[1] || !strings.Contains(answers[0], "func Total(shapes []Shape) float64") {
		t.Errorf("hover over HTTP = %q and %q, want the same answer with Total's signature", answers[0], answers[1])
	}
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestDialLostDaemonSaysWhy: a runtime of Dial whose daemon was killed
// and cannot be started again (its agentlsp command is gone) answers a
// call that gives up with why: ErrDaemonLost, naming the start's failure,
// not a bare "context deadline exceeded" (through MCP: "the language
// server did not answer in time (it may still be starting or indexing)",
// after a minute); once the command is back, the next call is answered
// by a new daemon.
func TestDialLostDaemonSaysWhy(t *testing.T) {
	ws := sharedWorkspace(t)
	bin := buildAgentlsp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	defer stopDaemons(t, bin)
	cmd := filepath.Join(t.TempDir(), "agentlsp")
	copyBinary(t, bin, cmd)
	rt, err := agentlsp.Dial(ctx, ws, daemon.WithCommand(cmd), daemon.WithVersion("devel"))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	s := rt.Session("agent")
	file := filepath.Join(ws, "gonav", "total.go")
	d := daemonStatus(t, bin)
	if len(d) != 1 {
		t.Fatalf("daemons %+v, want one", d)
	}
	if err := os.Remove(cmd); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(d[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	call, stop := context.WithTimeout(ctx, 10*time.Second)
	_, err = s.Diagnostics(call, []string{file})
	stop()
	if !errors.Is(err, agentlsp.ErrDaemonLost) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("Diagnostics without a daemon = %v, want ErrDaemonLost naming the failed start", err)
	}
	copyBinary(t, bin, cmd)
	testenv.Eventually(t, 2*time.Minute, "an answer from a new daemon", func() bool {
		reports, err := s.Diagnostics(ctx, []string{file})
		return err == nil && reports[0].Status == messages.StatusFresh
	})
}

// copyBinary copies the agentlsp binary to dst, executable.
func copyBinary(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
