package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentlsp/agentlsp/daemon"
	"github.com/agentlsp/agentlsp/daemon/rundir"
)

const statusAbout = `
Status lists this user's shared daemons (agentlsp serve): the workspace,
version, pid, attached clients, language servers, and memory (resident
memory of the daemon and of its servers' process groups). --json adds each
daemon's address, token, log file and MCP HTTP URL.`

// daemonRow is one daemon as status shows it.
type daemonRow struct {
	Workspace string   `json:"workspace"`
	Version   string   `json:"version"`
	PID       int      `json:"pid"`
	Clients   int      `json:"clients"`
	Servers   []string `json:"servers"`
	MemoryMiB float64  `json:"memoryMiB"` // the daemon and its servers
	Uptime    string   `json:"uptime"`
	Address   string   `json:"address"`
	HTTP      string   `json:"http,omitempty"`
	Token     string   `json:"token"`
	Log       string   `json:"log,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// runStatus is the status subcommand.
func runStatus(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("status", "status [--json]", statusAbout)
	jsonOut := fs.Bool("json", false, "print a JSON document instead of a table")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("status", "unexpected argument %q: status takes no arguments", pos[0])
	}
	rows, err := daemonRows(ctx)
	if err != nil {
		return failure(err)
	}
	if *jsonOut {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		return failure(enc.Encode(map[string]any{"daemons": rows}))
	}
	if len(rows) == 0 {
		fmt.Fprintln(std.out, "No agentlsp daemon runs for this user.")
		return nil
	}
	return failure(printDaemonRows(std.out, rows))
}

// daemonRows asks every live daemon of this user for its status.
func daemonRows(ctx context.Context) ([]daemonRow, error) {
	dir, err := rundir.Dir()
	if err != nil {
		return nil, err
	}
	entries, err := rundir.List(dir)
	if err != nil {
		return nil, err
	}
	var rows []daemonRow
	for _, r := range daemon.Status(ctx, entries, slog.New(slog.DiscardHandler)) {
		e := r.Entry
		row := daemonRow{Workspace: e.Workspace, Version: e.Version, PID: e.PID, Address: e.Address, HTTP: e.HTTP,
			Token: e.Token, Log: e.Log, Uptime: time.Since(e.Started).Round(time.Second).String()}
		if r.Err != nil {
			row.Error = r.Err.Error()
		}
		pids := []int{}
		if st := r.Status; st != nil {
			row.Clients = len(st.Clients)
			for _, s := range st.Servers {
				row.Servers = append(row.Servers, s.ServerID+" ("+s.State.String()+")")
				if s.PID > 0 {
					pids = append(pids, s.PID)
				}
			}
			sort.Strings(row.Servers)
		}
		row.MemoryMiB = float64(residentBytes(e.PID)+groupsResidentBytes(pids)) / (1 << 20)
		rows = append(rows, row)
	}
	return rows, nil
}

// printDaemonRows writes the daemons as a table.
func printDaemonRows(w io.Writer, rows []daemonRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tVERSION\tPID\tCLIENTS\tMEMORY\tUPTIME\tSERVERS")
	for _, r := range rows {
		servers := strings.Join(r.Servers, ", ")
		if r.Error != "" {
			servers = "? " + r.Error
		} else if servers == "" {
			servers = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f MiB\t%s\t%s\n", r.Workspace, r.Version, r.PID, r.Clients, r.MemoryMiB, r.Uptime, servers)
	}
	return tw.Flush()
}

// printDaemons adds this user's daemons to the servers table.
func printDaemons(ctx context.Context, w io.Writer) {
	rows, err := daemonRows(ctx)
	if err != nil || len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nShared daemons of this user (agentlsp status):")
	printDaemonRows(w, rows)
}
