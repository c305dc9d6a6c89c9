package agentlsp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
)

// A symbol search leaves out an implied server that is not installed, and
// says so when no other server is there; a probe starts it, and it is
// reported broken with the cause.
func TestWorkspaceSymbolsLeaveOutUninstalledServers(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "fake.root"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := config.RegistryOf(&config.Server{ID: "fake", Command: filepath.Join(ws, "no-such-server"),
		Extensions: map[string]string{".fk": "fake"}, RootMarkers: []string{"fake.root"}})
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: reg, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, rt) })
	ctx := context.Background()

	_, err = rt.Session("agent").WorkspaceSymbols(ctx, "x")
	if !errors.Is(err, messages.ErrNoServer) || !strings.Contains(err.Error(), "not installed: fake") {
		t.Errorf("WorkspaceSymbols = %v, want ErrNoServer naming fake as not installed", err)
	}
	if servers, err := rt.Servers(ctx); err != nil || len(servers) != 0 {
		t.Errorf("servers after the search = %+v, %v; want none started", servers, err)
	}

	if err := rt.Probe(ctx); err != nil {
		t.Errorf("Probe = %v", err)
	}
	servers, err := rt.Servers(ctx)
	if err != nil || len(servers) != 1 || !servers[0].Broken || !strings.Contains(servers[0].Err.Error(), "no-such-server") {
		t.Errorf("servers after the probe = %+v, %v; want fake broken, naming its command", servers, err)
	}
}
