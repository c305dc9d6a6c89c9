package mcp_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp/mcp"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPHandler: requests without the token are refused; each MCP
// session with it gets its own agentlsp session, ended when it closes.
func TestHTTPHandler(t *testing.T) {
	rt := start(t, "gonav", fakeConfig(t, 0))
	var open, requests atomic.Int32
	h := mcp.NewHTTPHandler(rt, "test", mcp.HTTPConfig{Token: "secret",
		OnRequest: func() { requests.Add(1) },
		OnSession: func() func() { open.Add(1); return func() { open.Add(-1) } }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()

	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
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
		if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("token %q: %s, want 401 with a Bearer challenge", tok, res.Status)
		}
	}
	if requests.Load() != 0 {
		t.Errorf("%d refused requests were counted as activity", requests.Load())
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sessions []*sdk.ClientSession
	for range 2 {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"secret"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lsp", Arguments: map[string]any{
			"operation": "documentSymbol", "filePath": "shapes.go"}})
		if err != nil || res == nil {
			t.Fatalf("lsp over HTTP: %v", err)
		}
	}
	if sessions[0].ID() == sessions[1].ID() {
		t.Errorf("two MCP sessions share the id %q", sessions[0].ID())
	}
	testenv.Eventually(t, 10*time.Second, "both sessions tracked", func() bool { return open.Load() == 2 })
	sessions[0].Close()
	testenv.Eventually(t, 10*time.Second, "the closed session ended", func() bool { return open.Load() == 1 })
	sessions[1].Close()
	testenv.Eventually(t, 10*time.Second, "every session ended", func() bool { return open.Load() == 0 })
}
