package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const setupAbout = `
Setup writes the agent's own MCP configuration entry "agentlsp", which runs
this agentlsp binary (by its absolute path) as "agentlsp mcp":

  claude    Claude Code: the project's .mcp.json (mcpServers.agentlsp);
            --global: ~/.claude.json (mcpServers.agentlsp, every project)
  codex     Codex: ~/.codex/config.toml ([mcp_servers.agentlsp]; always
            global, $CODEX_HOME/config.toml when CODEX_HOME is set)
  opencode  OpenCode: the project's opencode.json (mcp.agentlsp);
            --global: ~/.config/opencode/opencode.json
  cursor    Cursor: the project's .cursor/mcp.json (mcpServers.agentlsp);
            --global: ~/.cursor/mcp.json

A project entry serves the workspace (--workspace DIR, default the current
directory). A global entry serves the directory the agent starts it in (for
Cursor: ${workspaceFolder}), unless --workspace is given.

Setup merges with what the file holds: other entries and fields stay as
they are, comments of an opencode.json(c) and of a config.toml too. Before
it changes an existing file it copies it to FILE.bak. Run again, it changes
nothing. A file it cannot parse is left alone and named with the line and
column of the error.`

// Errors of setup.
var (
	errSetupParse  = errors.New("cannot parse")
	errSetupInline = errors.New("setup edits only a table of its own")
)

// setupOptions are the setup subcommand's flags.
type setupOptions struct {
	shared, global, print bool
}

// runSetup is the setup subcommand.
func runSetup(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("setup", "setup claude|codex|opencode|cursor [--shared] [--global] [--print] [global flags]", setupAbout)
	var opts setupOptions
	fs.BoolVar(&opts.shared, "shared", false, "the entry runs 'agentlsp mcp --shared' (attach to the workspace's shared daemon)")
	fs.BoolVar(&opts.global, "global", false, "write the user's configuration instead of the project's")
	fs.BoolVar(&opts.print, "print", false, "print the entry on stdout instead of writing it")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("setup", "want one agent (claude, codex, opencode or cursor), got %d arguments", len(pos))
	}
	ag, ok := findAgent(pos[0])
	if !ok {
		return usageErrorf("setup", "unknown agent %q: want claude, codex, opencode or cursor", pos[0])
	}
	plan, err := planSetup(ag, opts, fs.global)
	if err != nil {
		return failure(err)
	}
	if opts.print {
		return failure(printSetup(plan, std))
	}
	return failure(applySetup(plan, std.out))
}

// setupPlan is what setup writes where.
type setupPlan struct {
	agent agent
	file  string     // the configuration file, absolute
	home  bool       // file is in the user's home (private permissions)
	entry jsonObject // the agentlsp entry
}

// planSetup decides the file and the entry.
func planSetup(ag agent, opts setupOptions, g globalFlags) (setupPlan, error) {
	exe, err := os.Executable()
	if err != nil {
		return setupPlan{}, fmt.Errorf("setup: the path of this agentlsp binary: %w", err)
	}
	global := opts.global || ag.projectFile == nil
	workspace, err := setupWorkspace(g.workspace)
	if err != nil {
		return setupPlan{}, err
	}
	plan := setupPlan{agent: ag, home: global}
	if global {
		home, err := os.UserHomeDir()
		if err != nil {
			return setupPlan{}, fmt.Errorf("setup: home directory: %w", err)
		}
		plan.file = ag.globalFile(home)
	} else {
		plan.file = ag.projectFile(workspace)
	}
	args := []string{"mcp"}
	switch {
	case !global || g.workspace != "":
		args = append(args, "--workspace", workspace)
	case ag.globalWorkspace != "":
		args = append(args, "--workspace", ag.globalWorkspace)
	}
	if g.config != "" {
		cfg, err := filepath.Abs(g.config)
		if err != nil {
			return setupPlan{}, err
		}
		args = append(args, "--config", cfg)
	}
	if opts.shared {
		args = append(args, "--shared")
	}
	plan.entry = ag.entry(exe, args)
	return plan, nil
}

// setupWorkspace is dir (default: the current directory), absolute, which
// must be a directory.
func setupWorkspace(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", dir)
	}
	return abs, nil
}

// printSetup prints the entry as the agent's file would hold it.
func printSetup(plan setupPlan, std stdio) error {
	text, err := plan.agent.snippet(plan.entry)
	if err != nil {
		return err
	}
	fmt.Fprintf(std.errOut, "agentlsp setup %s: add this to %s\n", plan.agent.name, plan.file)
	_, err = io.WriteString(std.out, text)
	return err
}

// applySetup merges the entry into the file and says what it did.
func applySetup(plan setupPlan, w io.Writer) error {
	ag := plan.agent
	name := strings.Join(ag.path, ".")
	old, existed, err := readConfig(plan.file)
	if err != nil {
		return err
	}
	text, changed, err := ag.merge(plan.file, old, existed, plan.entry)
	if err != nil {
		return err
	}
	if !changed {
		fmt.Fprintf(w, "agentlsp setup %s: %s already has this %s entry: nothing changed\n", ag.name, plan.file, name)
		return nil
	}
	backup, err := writeConfig(plan.file, old, existed, text, plan.home)
	if err != nil {
		return err
	}
	switch {
	case !existed:
		fmt.Fprintf(w, "agentlsp setup %s: created %s with %s\n", ag.name, plan.file, name)
	default:
		fmt.Fprintf(w, "agentlsp setup %s: wrote %s in %s (backup: %s)\n", ag.name, name, plan.file, backup)
	}
	fmt.Fprintf(w, "  command: %s\n", quoteArgs(entryCommand(plan.entry)))
	return nil
}

// entryCommand is the command line an entry runs.
func entryCommand(e jsonObject) []string {
	var cmd []string
	for _, f := range e {
		switch v := f.value.(type) {
		case string:
			if f.key == "command" {
				cmd = append([]string{v}, cmd...)
			}
		case []string:
			if f.key == "args" || f.key == "command" {
				cmd = append(cmd, v...)
			}
		}
	}
	return cmd
}

// quoteArgs joins a command line, quoting the words that need it.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t'\"$\\") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
