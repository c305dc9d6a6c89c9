package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/lookpath"
	"github.com/agentlsp/agentlsp/messages"
)

const serversAbout = `
Servers lists every configured language server, disabled ones too: whether
its command is installed (where, or how to install it) and, for the servers
this command runs, whether they are running or broken and why.

Servers start lazily, when a file needs them, so without --probe none runs.
--probe starts the servers the workspace's root markers imply (a go.mod for
gopls, a pyproject.toml for pyright, ...) and reports their state once they
answered or failed.

--install NAME... installs the pinned version of built-in servers into
agentlsp's cache ($AGENTLSP_CACHE, default ~/.cache/agentlsp), where the
runtime looks before PATH: gopls with go install, the npm servers with
npm, clangd, rust-analyzer and pylsp with apt-get (as root; otherwise it
prints the command to run). A server already installed at that version is
left alone. Progress goes to stderr.`

// serversOptions are the servers subcommand's flags.
type serversOptions struct {
	json    bool
	probe   bool
	install bool
	timeout time.Duration
}

// runServers is the servers subcommand.
func runServers(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("servers", "servers [--json] [--probe [--timeout D]] [global flags]\n       agentlsp servers --install NAME...", serversAbout)
	var opts serversOptions
	fs.BoolVar(&opts.json, "json", false, "print a JSON document instead of a table")
	fs.BoolVar(&opts.probe, "probe", false, "start the servers the workspace's root markers imply and report their state")
	fs.DurationVar(&opts.timeout, "timeout", time.Minute, "with --probe, wait at most `D` for the servers")
	fs.BoolVar(&opts.install, "install", false, "install the pinned version of the built-in servers named as arguments")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if opts.install {
		if opts.json || opts.probe {
			return usageErrorf("servers", "--install takes no --json or --probe")
		}
		return installServers(ctx, pos, std)
	}
	switch {
	case len(pos) > 0:
		return usageErrorf("servers", "unexpected argument %q: servers takes no arguments", pos[0])
	case opts.timeout <= 0:
		return usageErrorf("servers", "invalid --timeout %v: must be positive", opts.timeout)
	}
	rt, stop, err := startRuntime(ctx, fs.global, std, func(c *agentlsp.Config) { c.NoWatch = true })
	if err != nil {
		return err
	}
	defer stop()
	all, err := allServers(fs.global.config)
	if err != nil {
		return failure(err)
	}
	if opts.probe {
		probe(ctx, rt, opts.timeout, std.errOut)
	}
	st, err := routerStatus(rt)
	if err != nil {
		return failure(err)
	}
	rows := serverRows(rt.Workspace(), all, st)
	if opts.json {
		return failure(printServersJSON(std.out, rows))
	}
	if err := printServersTable(std.out, rows); err != nil {
		return failure(err)
	}
	printDaemons(ctx, std.out)
	return nil
}

// allServers is every configured server, disabled ones too (the runtime's
// registry holds the enabled ones only).
func allServers(configFile string) ([]*config.Server, error) {
	var file *config.File
	if configFile != "" {
		f, err := config.LoadAny(configFile)
		if err != nil {
			return nil, err
		}
		file = f
	}
	reg, err := config.NewRegistry(file)
	if err != nil {
		return nil, err
	}
	return reg.All(), nil
}

// probe starts the servers the workspace implies with a workspace/symbol
// request, and waits for their answers, at most timeout. What went wrong
// is a note on w: the table shows each server's state.
func probe(ctx context.Context, rt *agentlsp.Runtime, timeout time.Duration, w io.Writer) {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := rt.Probe(pctx); err != nil {
		fmt.Fprintf(w, "agentlsp: probe: %s\n", safeLine(firstLine(trimPrefix(err.Error()))))
	}
}

// serverJSON is one configured server in servers' output.
type serverJSON struct {
	ID          string   `json:"id"`
	Enabled     bool     `json:"enabled"`
	Command     string   `json:"command"`
	Args        []string `json:"args"`
	Installed   bool     `json:"installed"`
	Path        string   `json:"path,omitempty"` // where the command was found
	InstallHint string   `json:"installHint,omitempty"`
	// NotUsable says why the command found is not taken (rustup's proxy
	// for a component the toolchain does not have).
	NotUsable  string         `json:"notUsable,omitempty"`
	Extensions []string       `json:"extensions"`
	Instances  []instanceJSON `json:"instances"` // the server actors running, one per root
}

// instanceJSON is one server actor: the server at one project root.
type instanceJSON struct {
	Root      string `json:"root"`
	State     string `json:"state"`
	Broken    bool   `json:"broken"`
	Error     string `json:"error,omitempty"`
	OpenFiles int    `json:"openFiles"`
	reason    string // Error in short, for the table
}

// serverRows joins the configuration, the installed commands and the
// router's status.
func serverRows(workspace string, all []*config.Server, st *messages.RouterStatus) []serverJSON {
	rows := make([]serverJSON, 0, len(all))
	for _, s := range all {
		row := serverJSON{ID: s.ID, Enabled: !s.Disabled, Command: s.Command, Args: slices.Clone(s.Args),
			InstallHint: s.InstallHint, Extensions: slices.Sorted(maps.Keys(s.Extensions)), Instances: []instanceJSON{}}
		if row.Args == nil {
			row.Args = []string{}
		}
		row.Path, row.Installed, row.NotUsable = findCommand(workspace, s.Command)
		for _, info := range st.Servers {
			if info.ServerID == s.ID {
				row.Instances = append(row.Instances, instance(workspace, info))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func instance(workspace string, info messages.ServerInfo) instanceJSON {
	in := instanceJSON{Root: info.Root, State: info.State.String(), Broken: info.Broken, OpenFiles: info.OpenFiles}
	if rel, err := filepath.Rel(workspace, info.Root); err == nil && !strings.HasPrefix(rel, "..") {
		in.Root = filepath.ToSlash(rel)
	}
	if info.Broken {
		in.State = "broken"
	}
	if info.Err != nil {
		in.Error = trimPrefix(info.Err.Error())
		in.reason = reason(info.Err)
	}
	return in
}

// reason is why a server failed, on one line: a *messages.ServerError's
// cause and hint (the table already names the server and says broken),
// else the error's first line.
func reason(err error) string {
	var se *messages.ServerError
	if errors.As(err, &se) && se.Cause != "" {
		r := se.Cause
		if se.Hint != "" {
			r += "; " + se.Hint
		}
		return firstLine(r)
	}
	return firstLine(trimPrefix(err.Error()))
}

// findCommand finds a server command as the runtime does: a path as is
// (relative to the workspace), a bare name in agentlsp's server directories
// and then PATH, past rustup's proxies for components the toolchain does
// not have (lookpath); notUsable says why such a proxy was passed over
// when nothing else was found.
func findCommand(workspace, cmd string) (path string, ok bool, notUsable string) {
	if cmd == "" {
		return "", false, ""
	}
	if strings.ContainsRune(cmd, filepath.Separator) {
		p := cmd
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		return p, isExecutable(p), ""
	}
	for _, dir := range config.DefaultServerPath() {
		if p := filepath.Join(dir, cmd); isExecutable(p) {
			return p, true, ""
		}
	}
	p, err := lookpath.Look(cmd)
	if err == nil {
		return p, true, ""
	}
	if pe, ok := errors.AsType[*lookpath.ProxyError](err); ok {
		return "", false, pe.Error()
	}
	return "", false, ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// printServersJSON prints the rows as {"servers": [...]}.
func printServersJSON(w io.Writer, rows []serverJSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Servers []serverJSON `json:"servers"`
	}{rows})
}

// printServersTable prints one line per server: its id, whether it is
// enabled, its command and its state (last, as a reason can be long).
func printServersTable(w io.Writer, rows []serverJSON) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tENABLED\tCOMMAND\tSTATE")
	for _, r := range rows {
		enabled := "yes"
		if !r.Enabled {
			enabled = "no"
		}
		state := stateColumn(r.Instances)
		if !r.Enabled && len(r.Instances) == 0 {
			state = "-"
		}
		// A command's path and a failure's cause are text of the
		// configuration's and the server's: escaped as all text output.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safeLine(r.ID), enabled, safeLine(commandColumn(r)), safeLine(state))
	}
	return tw.Flush()
}

// stateColumn is "not started", a state ("running", "broken: why",
// "starting (last failure: why)" while it restarts after a crash), or one
// state per root.
func stateColumn(ins []instanceJSON) string {
	if len(ins) == 0 {
		return "not started"
	}
	parts := make([]string, len(ins))
	for i, in := range ins {
		s := in.State
		if len(ins) > 1 {
			s += " at " + in.Root
		}
		switch {
		case in.reason == "":
		case in.Broken:
			s += ": " + in.reason
		case in.State != "running": // restarting after a crash, or a start that failed
			s += " (last failure: " + in.reason + ")"
		}
		parts[i] = s
	}
	return strings.Join(parts, "; ")
}

// commandColumn is where the command is, or how to install it.
func commandColumn(r serverJSON) string {
	switch {
	case r.Installed:
		return r.Path
	case r.Command == "":
		return "(no command: connects to a socket)"
	case r.NotUsable != "":
		return "not installed: " + r.NotUsable
	case r.InstallHint != "":
		return "not installed: " + r.InstallHint
	}
	return fmt.Sprintf("not installed: %s is not in the agentlsp server directories or PATH", r.Command)
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
