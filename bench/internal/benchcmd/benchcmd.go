// Package benchcmd is what the benchmark commands in bench/cmd share: their
// main, and building the agentlsp binary they drive.
package benchcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Run is a command's body: it parses args, runs and writes its report.
type Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Main runs run with a context that ends on SIGINT or SIGTERM, and exits
// 1 with the error, prefixed with name, on stderr (0 for --help).
func Main(name string, run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name+": ") {
		msg = name + ": " + msg
	}
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}

// BuildAgentlsp compiles agentlsp into dir (within 5 minutes), saying so
// on log.
func BuildAgentlsp(ctx context.Context, name, dir string, log io.Writer) (string, error) {
	bin, err := Build(ctx, name, dir, "cmd/agentlsp", log)
	if err != nil {
		err = fmt.Errorf("%w\n(or pass --agentlsp with a built binary)", err)
	}
	return bin, err
}

// Build compiles the module's command in pkg (a directory relative to
// the module's root, such as cmd/agentlsp) into dir, within 5 minutes,
// saying so on log.
func Build(ctx context.Context, name, dir, pkg string, log io.Writer) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg))
	fmt.Fprintf(log, "%s: building %s...\n", name, filepath.Base(pkg))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/agentlsp/agentlsp/"+pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: go build %s (run inside the agentlsp module): %v\n%s", name, pkg, err, out)
	}
	return bin, nil
}
