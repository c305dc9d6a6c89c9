package router_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

func keysOf(ws string, targets []messages.Target) []string {
	var out []string
	for _, t := range targets {
		rel, _ := filepath.Rel(ws, t.Root)
		out = append(out, t.ServerID+"@"+rel)
	}
	sort.Strings(out)
	return out
}

func TestRouterResolvesMonorepo(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	os.WriteFile(filepath.Join(ws, "svc-a", "UPPER.GO"), []byte("package svca\n"), 0o644)
	router := h.Router(ws, actortest.FakeRegistry(t), nil)
	tests := []struct {
		path string
		want []string
	}{
		{"svc-a/a.go", []string{"fake-go@svc-a", "fake-lint@."}},
		{"svc-a/UPPER.GO", []string{"fake-go@svc-a", "fake-lint@."}},
		{filepath.Join(ws, "svc-b/internal/deep/b.go"), []string{"fake-go@svc-b", "fake-lint@."}},
		{"gowork/mod1/m.go", []string{"fake-go@gowork", "fake-lint@."}},
		{"gowork/mod2/../mod2/m.go", []string{"fake-go@gowork", "fake-lint@."}},
		{"web/src/index.ts", []string{"fake-ts@web"}},
		{"py/pkg/app.py", []string{"fake-py@py"}},
	}
	for _, tc := range tests {
		res := h.Ask(router, &messages.Resolve{Path: tc.path}).(*messages.Resolved)
		if res.Err != nil {
			t.Errorf("Resolve(%s) error %v", tc.path, res.Err)
			continue
		}
		if got := keysOf(ws, res.Targets); !cmp.Equal(got, tc.want) {
			t.Errorf("Resolve(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// Nothing was started by resolving.
	if st := h.Ask(router, &messages.GetRouterStatus{}).(*messages.RouterStatus); len(st.Servers) != 0 {
		t.Errorf("servers after Resolve = %v, want none", st.Servers)
	}
}

func TestRouterBadPaths(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	outside := filepath.Join(t.TempDir(), "secret.go")
	os.WriteFile(outside, []byte("package secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(ws, "svc-a", "escape.go"))
	os.Symlink(filepath.Dir(outside), filepath.Join(ws, "escape-dir"))
	router := h.Router(ws, actortest.FakeRegistry(t), nil)
	tests := []struct {
		path   string
		kind   error
		detail string
	}{
		{"../secret.go", messages.ErrOutsideWorkspace, "workspace"},
		{"svc-a/../../secret.go", messages.ErrOutsideWorkspace, "workspace"},
		{outside, messages.ErrOutsideWorkspace, "workspace"},
		{"svc-a/escape.go", messages.ErrOutsideWorkspace, "resolves to"},
		{"escape-dir/secret.go", messages.ErrOutsideWorkspace, "resolves to"},
		{"svc-a/missing.go", messages.ErrFileNotFound, ""},
		{"svc-a", messages.ErrIsDirectory, ""},
		{"docs/notes.txt", messages.ErrNoServer, "configured extensions: .go .py .ts"},
		{"deno-app/main.ts", messages.ErrNoServer, "exclusion marker"},
		{"", messages.ErrInvalidPath, "empty path"},
		{strings.Repeat("a/", 3000) + "x.go", messages.ErrInvalidPath, "longer than the limit"},
		{"svc-a/nul\x00.go", messages.ErrInvalidPath, "NUL"},
		{filepath.Join(ws, "svc-a", "a.go", "x.go"), messages.ErrFileNotFound, "not a directory"},
	}
	for _, tc := range tests {
		res := h.FileRequest(router, tc.path, "textDocument/hover", map[string]any{})
		var pe *messages.PathError
		if !errors.Is(res.Err, tc.kind) || !errors.As(res.Err, &pe) || !strings.Contains(res.Err.Error(), tc.detail) {
			t.Errorf("FileRequest(%q) error = %v, want %v mentioning %q", tc.path, res.Err, tc.kind, tc.detail)
		}
	}
}

func TestRouterConcurrentFirstTouchStartsOneServer(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	def := actortest.FakeDef(t, "fake-go", []string{".go"}, []string{"go.mod"}, nil)
	def.MaxInFlight = 128 // 100 at once would be over the default bound of 64
	router := h.Router(ws, config.RegistryOf(def), nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{})
			res, err := h.Sys.Root.RequestFuture(router, &messages.FileRequest{
				ID: actortest.RequestIDs.Add(1), Path: "svc-a/a.go", Method: "textDocument/hover", Params: raw,
			}, 60*time.Second).Result()
			if err == nil && (res.(*messages.FileResponse).Err != nil || res.(*messages.FileResponse).Results[0].Err != nil) {
				err = errors.Join(res.(*messages.FileResponse).Err, res.(*messages.FileResponse).Results[0].Err)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent first touch: %v", err)
		}
	}
	st := h.Ask(router, &messages.GetRouterStatus{}).(*messages.RouterStatus)
	if len(st.Servers) != 1 || st.Servers[0].Incarnation != 1 {
		t.Errorf("servers = %+v, want one, first incarnation", st.Servers)
	}
	if procs := testenv.Processes(); len(procs) != 1 {
		t.Errorf("processes = %v, want exactly one", procs)
	}
}

func TestRouterFanOutAndReferenceCountedDocuments(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	router := h.Router(ws, actortest.FakeRegistry(t), nil)
	text := "package svca\n\nfunc A() int { return 1 } // ERROR: both servers see this\n"
	for _, session := range []string{"agent-1", "agent-2"} {
		res := h.Sync(router, session, "svc-a/a.go", messages.SyncChange, text)
		if res.Err != nil || len(res.Servers) != 2 {
			t.Fatalf("open by %s = %+v", session, res)
		}
	}
	uri := paths.URI(filepath.Join(ws, "svc-a", "a.go"))
	docText := func() []string {
		res := h.FileRequest(router, "svc-a/a.go", "fake/documentText", map[string]string{"uri": uri})
		var out []string
		for _, r := range res.Results {
			if r.Err != nil {
				out = append(out, r.ServerID+": not open")
				continue
			}
			var d struct{ Text string }
			json.Unmarshal(r.Result, &d)
			out = append(out, r.ServerID+": "+d.Text)
		}
		sort.Strings(out)
		return out
	}
	want := []string{"fake-go: " + text, "fake-lint: " + text}
	if got := docText(); !cmp.Equal(got, want) {
		t.Errorf("document on servers = %v, want %v", got, want)
	}
	for _, srv := range []string{"fake-go", "fake-lint"} {
		h.Await("diagnostics from "+srv, 10*time.Second, func(e any) bool {
			d, ok := e.(*messages.PublishedDiagnostics)
			return ok && d.ServerID == srv && d.URI == uri && len(d.Diagnostics) == 1
		})
	}
	// agent-1 closes: agent-2 still has it open, so the servers keep it.
	if res := h.Sync(router, "agent-1", "svc-a/a.go", messages.SyncClose, ""); res.Err != nil || len(res.Servers) != 0 {
		t.Errorf("first close = %+v, want no server message", res)
	}
	if got := docText(); !cmp.Equal(got, want) {
		t.Errorf("after first close = %v, want still open", got)
	}
	if res := h.Sync(router, "agent-2", "svc-a/a.go", messages.SyncClose, ""); res.Err != nil || len(res.Servers) != 2 {
		t.Errorf("last close = %+v, want both servers", res)
	}
	if got := docText(); !cmp.Equal(got, []string{"fake-go: not open", "fake-lint: not open"}) {
		t.Errorf("after last close = %v", got)
	}
}

func TestRouterWorkspaceRequestReachesImpliedServers(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	router := h.Router(ws, actortest.FakeRegistry(t), nil)
	raw, _ := json.Marshal(map[string]string{"query": "A"})
	res := h.Ask(router, &messages.WorkspaceRequest{ID: actortest.RequestIDs.Add(1), Method: "workspace/symbol", Params: raw}).(*messages.FileResponse)
	var got []string
	for _, r := range res.Results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.ServerID, r.Err)
		}
		rel, _ := filepath.Rel(ws, r.Root)
		got = append(got, r.ServerID+"@"+rel)
	}
	sort.Strings(got)
	want := []string{"fake-go@gowork", "fake-go@svc-a", "fake-go@svc-b", "fake-py@py", "fake-ts@web"}
	if !cmp.Equal(got, want) {
		t.Errorf("workspace request went to %v, want %v", got, want)
	}
	// With servers running, it goes to those.
	h.FileRequest(router, "py/pkg/app.py", "textDocument/hover", map[string]any{})
	res = h.Ask(router, &messages.WorkspaceRequest{ID: actortest.RequestIDs.Add(1), Method: "workspace/symbol", Params: raw}).(*messages.FileResponse)
	if len(res.Results) != 5 {
		t.Errorf("second workspace request reached %d servers, want the 5 running", len(res.Results))
	}
}

func TestRouterBrokenServerReported(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	missing := &config.Server{ID: "ghost", Command: "agentlsp-ghost-server", Extensions: map[string]string{".py": "python"},
		RootMarkers: []string{"pyproject.toml"}, InstallHint: "npm install -g ghost"}
	router := h.Router(ws, config.RegistryOf(missing), nil)
	res := h.FileRequest(router, "py/pkg/app.py", "textDocument/hover", map[string]any{})
	if len(res.Results) != 1 || !errors.Is(res.Results[0].Err, messages.ErrServerBroken) ||
		!strings.Contains(res.Results[0].Err.Error(), "npm install -g ghost") {
		t.Fatalf("request to missing server = %+v", res)
	}
	testenv.Eventually(t, 10*time.Second, "router knows the server is broken", func() bool {
		st := h.Ask(router, &messages.GetRouterStatus{}).(*messages.RouterStatus)
		return len(st.Servers) == 1 && st.Servers[0].Broken && errors.Is(st.Servers[0].Err, messages.ErrServerBroken)
	})
}

func TestRouterStopsIdleServers(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	def := actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil)
	def.IdleTimeout = config.Duration(200 * time.Millisecond)
	router := h.Router(ws, config.RegistryOf(def), nil)
	h.Sync(router, "a", "py/pkg/app.py", messages.SyncChange, "x = 1\n")
	h.Sync(router, "a", "py/pkg/app.py", messages.SyncClose, "")
	testenv.Eventually(t, 10*time.Second, "idle server stopped", func() bool {
		return len(h.Ask(router, &messages.GetRouterStatus{}).(*messages.RouterStatus).Servers) == 0
	})
	testenv.NoProcesses(t)
	// The next use starts it again.
	if res := h.FileRequest(router, "py/pkg/app.py", "textDocument/hover", map[string]any{}); res.Results[0].Err != nil {
		t.Errorf("request after idle stop = %v", res.Results[0].Err)
	}
}
