package actortest

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// Testdata is the path of test/testdata/name.
func Testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", name)
}

// Monorepo copies the monorepo testdata workspace.
func Monorepo(t *testing.T) string { return testenv.CopyDir(t, Testdata("monorepo")) }

// FakeDef is a fake server definition serving exts with root markers.
func FakeDef(t *testing.T, id string, exts []string, markers, exclude []string, flags ...string) *config.Server {
	cmd, args, env := testenv.FakeServer(t, flags...)
	s := &config.Server{ID: id, Command: cmd, Args: args, Env: env, Extensions: map[string]string{},
		RootMarkers: markers, ExcludeMarkers: exclude, RootMarkerPriority: id == "fake-go"}
	for _, e := range exts {
		s.Extensions[e] = strings.TrimPrefix(e, ".")
	}
	return s
}

// FakeRegistry is four fake servers with the markers of gopls, a linter,
// typescript and pyright.
func FakeRegistry(t *testing.T, flags ...string) *config.Registry {
	return config.RegistryOf(
		FakeDef(t, "fake-go", []string{".go"}, []string{"go.work", "go.mod"}, nil, flags...),
		FakeDef(t, "fake-lint", []string{".go"}, nil, nil, flags...),
		FakeDef(t, "fake-ts", []string{".ts"}, []string{"tsconfig.json", "package.json"}, []string{"deno.json"}, flags...),
		FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil, flags...),
	)
}

// Builtin is the built-in definition id running the installed binary,
// with generous timeouts for cold starts.
func Builtin(t *testing.T, id, binary string) *config.Server {
	s := config.Builtins()[id]
	if s == nil {
		t.Fatalf("no built-in %s", id)
	}
	s.Command = testenv.ServerBinary(t, binary)
	s.StartupTimeout = config.Duration(90 * time.Second)
	s.RequestTimeout = config.Duration(60 * time.Second)
	return s
}

// Logger is a debug logger on stderr when AGENTLSP_TEST_LOG is set, else
// nil (the actors discard their logs).
func Logger() *slog.Logger {
	if os.Getenv("AGENTLSP_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
