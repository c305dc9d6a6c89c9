package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlsp/agentlsp/bench/internal/benchcmd"
)

// loadTest is one run's shared state: the temporary directory, the binaries,
// the workspace and the process tracker. Owned by run's goroutine; the
// tracker is safe for concurrent use.
type loadTest struct {
	o      *options
	log    io.Writer
	tmp    string // removed by cleanup
	bin    string // agentlsp
	config string // agentlsp configuration naming the servers
	ws     string // the workspace
	marker string // markerEnv=<id>, in every child's environment
	// childTmp is the children's TMPDIR.
	childTmp string
	procs    *tracker
}

// setup builds or finds agentlsp, writes its configuration and generates
// the workspace. cleanup removes everything; call it even on error.
func setup(ctx context.Context, o *options, log io.Writer) (b *loadTest, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "mcpload-")
	if err != nil {
		return nil, func() {}, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return nil, cleanup, err
	}
	marker := fmt.Sprintf("%s=%s-%d", markerEnv, filepath.Base(tmp), time.Now().UnixNano())
	b = &loadTest{o: o, log: log, tmp: tmp, bin: o.agentlsp, config: filepath.Join(tmp, "agentlsp.json"),
		ws: filepath.Join(tmp, "ws"), marker: marker, procs: newTracker(marker), childTmp: filepath.Join(tmp, "tmp")}
	if err := os.Mkdir(b.childTmp, 0o700); err != nil {
		return nil, cleanup, err
	}
	if b.bin == "" {
		if b.bin, err = benchcmd.BuildAgentlsp(ctx, "mcpload", tmp, log); err != nil {
			return nil, cleanup, err
		}
	}
	gopls := map[string]any{"command": o.gopls}
	pyright := map[string]any{"command": o.pyright, "args": []string{"--stdio"}}
	if o.maxRestarts > 0 {
		gopls["maxRestarts"], pyright["maxRestarts"] = o.maxRestarts, o.maxRestarts
	}
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{"gopls": gopls, "pyright": pyright}})
	if err := os.WriteFile(b.config, cfg, 0o644); err != nil {
		return nil, cleanup, err
	}
	if err := generate(b.ws, o.clients, o.concurrency); err != nil {
		return nil, cleanup, err
	}
	return b, cleanup, nil
}

// stderrSummary counts the ERROR lines and panics in the agentlsp
// processes' stderr files, and quotes the first of each.
func (b *loadTest) stderrSummary() StderrSummary {
	var s StderrSummary
	files, _ := filepath.Glob(filepath.Join(b.tmp, "agentlsp-*.stderr"))
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(text)) {
			line = strings.TrimSpace(line)
			switch {
			case strings.Contains(line, "level=ERROR"):
				s.ErrorLines++
				if s.FirstError == "" {
					s.FirstError = line
				}
			case strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:"):
				s.Panics++
				if s.FirstPanic == "" {
					s.FirstPanic = line
				}
			case strings.Contains(line, "level=WARN"):
				s.WarnLines++
				if s.FirstWarn == "" {
					s.FirstWarn = line
				}
			}
		}
	}
	return s
}
