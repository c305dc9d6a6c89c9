package daemon

import (
	"context"
	"log/slog"
	"strings"
)

// remoteChatter starts the messages protoactor remote logs about its
// connections: a daemon and its clients connect and disconnect as a matter
// of course ("EndpointWriter lost connection" is logged as an error).
var remoteChatter = []string{"Endpoint", "Started Endpoint", "Started Activator", "Starting remote",
	"Starting Proto.Actor", "Stopped Proto.Actor", "Killed Proto.Actor", "Stopped EndpointManager", "actor system started"}

// QuietRemote returns a handler that logs protoactor remote's connection
// messages at debug level and everything else as h does.
func QuietRemote(h slog.Handler) slog.Handler { return quiet{h} }

type quiet struct{ slog.Handler }

func (q quiet) Handle(ctx context.Context, r slog.Record) error {
	for _, p := range remoteChatter {
		if strings.HasPrefix(r.Message, p) {
			if !q.Handler.Enabled(ctx, slog.LevelDebug) {
				return nil
			}
			r.Level = slog.LevelDebug
			break
		}
	}
	return q.Handler.Handle(ctx, r)
}

func (q quiet) WithAttrs(as []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(as)} }
func (q quiet) WithGroup(name string) slog.Handler    { return quiet{q.Handler.WithGroup(name)} }
