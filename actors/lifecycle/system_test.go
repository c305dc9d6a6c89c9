package lifecycle_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// protoactor's INFO lines (the system started, dead letters) are DEBUG
// lines in agentlsp's log: absent at INFO, present at DEBUG.
func TestProtoactorsInfoIsDebug(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var log testenv.Buffer
		sys := lifecycle.NewSystem(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: level})))
		sys.Shutdown()
		got := log.String()
		switch {
		case level == slog.LevelInfo && got != "":
			t.Errorf("at INFO the log has %q, want nothing", got)
		case level == slog.LevelDebug && !strings.Contains(got, "level=DEBUG msg=\"actor system started\""):
			t.Errorf("at DEBUG the log has %q, want the system's start as DEBUG", got)
		}
	}
}
