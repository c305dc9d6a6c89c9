package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// memory measures --agents MCP agents with a runtime each against as
// many sharing the daemon.
func (b *bench) memory(ctx context.Context, w io.Writer) error {
	own, err := b.agents(ctx, b.embedded, false)
	if err != nil {
		return err
	}
	shared, err := b.agents(ctx, b.shared, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## Memory of %d agents (resident, every process: agentlsp, daemon, gopls)\n\n", b.o.agents)
	fmt.Fprintf(w, "| setup | processes | resident memory |\n|---|---|---|\n")
	fmt.Fprintf(w, "| one runtime each (`agentlsp mcp`) | %d | %.0f MiB |\n", own.procs, own.mib)
	fmt.Fprintf(w, "| shared (`agentlsp mcp --shared` and the daemon) | %d | %.0f MiB |\n", shared.procs, shared.mib)
	fmt.Fprintf(w, "| ratio | | %.1fx |\n\n", own.mib/shared.mib)
	return nil
}

// usage is the memory of a set of processes.
type usage struct {
	procs int
	mib   float64
}

// agents starts the agents, warms each with a hover, measures them (and
// the daemon with its servers when shared), and closes them.
func (b *bench) agents(ctx context.Context, ws string, shared bool) (usage, error) {
	clients := make([]*sdk.ClientSession, b.o.agents)
	cmds := make([]*exec.Cmd, b.o.agents)
	errs := make([]error, b.o.agents)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"mcp", "--workspace", ws}
			if shared {
				args = append(args, "--shared")
			}
			cmds[i] = exec.Command(b.bin, args...)
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "daemonbench", Version: "1"}, nil).
				Connect(ctx, &sdk.CommandTransport{Command: cmds[i]}, nil)
			if err != nil {
				errs[i] = err
				return
			}
			clients[i] = cs
			errs[i] = b.mcpHover(ctx, cs)
		}()
	}
	wg.Wait()
	defer func() {
		for _, cs := range clients {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	for _, err := range errs {
		if err != nil {
			return usage{}, err
		}
	}
	var pids []int
	for _, c := range cmds {
		pids = append(pids, tree(c.Process.Pid)...)
	}
	if shared {
		pids = append(pids, tree(b.daemonPID())...)
	}
	var total int64
	for _, p := range pids {
		total += rss(p)
	}
	return usage{procs: len(pids), mib: float64(total) / (1 << 20)}, nil
}

// mcpHover asks for the call site's hover until it answers.
func (b *bench) mcpHover(ctx context.Context, cs *sdk.ClientSession) error {
	var last string
	for range 100 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lsp", Arguments: map[string]any{
			"operation": "hover", "filePath": b.t.Call.Path, "line": b.t.Call.Line, "character": b.t.Call.Column}})
		if err != nil {
			return err
		}
		if !res.IsError {
			return nil
		}
		last = fmt.Sprint(res.Content)
	}
	return fmt.Errorf("hover over MCP never answered: %s", last)
}

// daemonPID is the pid of the daemon of the shared copy.
func (b *bench) daemonPID() int {
	out, _ := exec.Command(b.bin, "status", "--json").Output()
	i := bytes.Index(out, []byte(`"pid": `))
	if i < 0 {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimRight(strings.Fields(string(out[i+7:]))[0], ","))
	return pid
}

// tree returns pid and its descendants.
func tree(pid int) []int {
	if pid <= 0 {
		return nil
	}
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	out := []int{}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

// rss is a process's resident memory in bytes.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
