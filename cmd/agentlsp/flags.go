package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/agentlsp/agentlsp"
)

// shutdownTimeout bounds a runtime's Shutdown when a subcommand ends: the
// servers get that long for a graceful shutdown, then their process groups
// are killed, so the command exits within 2 s of a signal or the end of its
// input, whatever its servers do.
const shutdownTimeout = time.Second

// globalFlags are the flags every subcommand takes.
type globalFlags struct {
	workspace string
	config    string
	logLevel  string
	level     slog.Level // logLevel, parsed
	shared    bool       // --shared (shared.go): attach to the daemon
}

// globalNames are the global flags' names, listed apart in usage.
var globalNames = map[string]bool{"workspace": true, "config": true, "log-level": true}

// flagSet is one subcommand's flags and usage text.
type flagSet struct {
	*flag.FlagSet
	name     string
	synopsis string // after "Usage: agentlsp "
	about    string // what the command does, one paragraph or more
	global   globalFlags
}

// newFlagSet returns the flags of subcommand name with the global flags
// registered. Its usage is printed by parse, never by the flag package.
func newFlagSet(name, synopsis, about string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), name: name, synopsis: synopsis, about: about}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&fs.global.workspace, "workspace", "",
		"workspace `DIR`: files must be inside it, and relative FILE paths are relative to it (default: the current directory)")
	fs.StringVar(&fs.global.config, "config", "",
		"configuration `FILE`: agentlsp JSON, an opencode.json or a Claude Code .lsp.json (default: the built-in servers)")
	fs.StringVar(&fs.global.logLevel, "log-level", "warn", "log `LEVEL` on stderr: debug, info, warn or error")
	return fs
}

// parse parses args, flags and positional arguments in any order ("--"
// ends the flags). It returns flag.ErrHelp after printing the usage on
// stdout for --help, and a usage error for bad flags.
func (fs *flagSet) parse(args []string, std stdio) ([]string, error) {
	pos, err := parseInterspersed(fs.FlagSet, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.printUsage(std.out)
		return nil, flag.ErrHelp
	case err != nil:
		return nil, usageErrorf(fs.name, "%v", err)
	}
	if err := fs.global.level.UnmarshalText([]byte(fs.global.logLevel)); err != nil {
		return nil, usageErrorf(fs.name, "invalid --log-level %q: want debug, info, warn or error", fs.global.logLevel)
	}
	return pos, nil
}

// parseInterspersed is fs.Parse that also accepts flags after positional
// arguments, as in "query hover main.go:3:4 --json".
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if len(rest) == 0 || consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// printUsage writes the subcommand's usage: synopsis, description, its own
// flags, then the global ones.
func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: agentlsp %s\n\n%s\n", fs.synopsis, strings.TrimSpace(fs.about))
	own := fs.flagTable(func(name string) bool { return !globalNames[name] })
	if own != "" {
		fmt.Fprintf(w, "\nFlags:\n%s", own)
	}
	fmt.Fprintf(w, "\nGlobal flags:\n%s", fs.flagTable(func(name string) bool { return globalNames[name] }))
}

// flagTable renders the flags keep selects, one a line.
func (fs *flagSet) flagTable(keep func(string) bool) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f.Name) {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if arg != "" {
			name += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0s" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	tw.Flush()
	return b.String()
}

// startRuntime starts a runtime for the global flags, with tweak (if not
// nil) applied to its configuration. The returned stop shuts it down,
// bounded by shutdownTimeout even when ctx is already cancelled.
func startRuntime(ctx context.Context, g globalFlags, std stdio, tweak func(*agentlsp.Config)) (*agentlsp.Runtime, func(), error) {
	if g.shared { // the daemon's configuration applies, not tweak
		return dialRuntime(ctx, g, std)
	}
	logger := slog.New(slog.NewTextHandler(std.errOut, &slog.HandlerOptions{Level: g.level}))
	ws := g.workspace
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, failure(err)
		}
		ws = wd
	}
	cfg := agentlsp.Config{Workspace: ws, ConfigFile: g.config, Logger: logger}
	if tweak != nil {
		tweak(&cfg)
	}
	rt, err := agentlsp.Start(ctx, cfg)
	if err != nil {
		return nil, nil, failure(err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := rt.Shutdown(sctx); err != nil {
			logger.Warn("shutdown", "err", err)
		}
	}
	return rt, stop, nil
}

// lockedWriter serializes writes to w: stderr is shared by the logger
// (actor goroutines), the progress reporter and the subcommand.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// trimPrefix removes the "agentlsp: " that errors of the library start
// with (the command adds its own), also where wrapped errors repeat it.
func trimPrefix(msg string) string {
	for strings.HasPrefix(msg, "agentlsp: ") {
		msg = strings.TrimPrefix(msg, "agentlsp: ")
	}
	return strings.ReplaceAll(msg, ": agentlsp: ", ": ")
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	if lw, ok := w.(*lockedWriter); ok {
		w = lw.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
