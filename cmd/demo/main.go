// Command demo shows agentlsp's supervised language-server actor at work
// on real gopls: it writes a small Go module, opens a file with an error,
// prints the diagnostics in the model format, kills gopls with SIGKILL,
// shows the actor restart it with the document re-opened and the
// diagnostics back, then fixes the error.
package main

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
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

const sampleMod = "module example.com/demo\n\ngo 1.22\n"

const brokenMain = `package main

import "fmt"

func main() {
	fmt.Println(greeting("agent"))
}
`

const fixedMain = `package main

import "fmt"

func greeting(name string) string { return "hello, " + name }

func main() {
	fmt.Println(greeting("agent"))
}
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gopls := fs.String("gopls", "", "path of gopls (default: the agentlsp cache, then PATH)")
	dir := fs.String("dir", "", "directory for the sample module (default: a temporary directory)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	bin, err := findGopls(*gopls)
	if err != nil {
		return err
	}
	root, cleanup, err := writeSample(*dir)
	if err != nil {
		return err
	}
	defer cleanup()
	d := newDemo(root, stdout)
	defer d.close()
	return d.run(ctx, bin)
}

func findGopls(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	cache := os.Getenv("AGENTLSP_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "agentlsp")
	}
	if p := filepath.Join(cache, "bin", "gopls"); fileExists(p) {
		return p, nil
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p, nil
	}
	return "", errors.New("gopls not found: run scripts/install-servers.sh gopls (or go install golang.org/x/tools/gopls@v0.23.0)")
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func writeSample(dir string) (string, func(), error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agentlsp-demo-")
		if err != nil {
			return "", nil, err
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(sampleMod), 0o644); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(brokenMain), 0o644); err != nil {
		return "", nil, err
	}
	return dir, cleanup, nil
}

// demo drives one server actor and watches its events.
type demo struct {
	root   string
	out    io.Writer
	sys    *actor.ActorSystem
	reaper *actors.Reaper
	events chan any
	server *actor.PID
}

func newDemo(root string, out io.Writer) *demo {
	d := &demo{root: root, out: out, sys: actors.NewSystem(nil), reaper: &actors.Reaper{}, events: make(chan any, 1024)}
	return d
}

func (d *demo) close() {
	if d.server != nil {
		_ = d.sys.Root.StopFuture(d.server).Wait()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d.reaper.Wait(ctx)
	d.sys.Shutdown()
}

func (d *demo) run(ctx context.Context, gopls string) error {
	observer := d.sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.StateChanged, *messages.PublishedDiagnostics:
			select {
			case d.events <- m:
			default:
			}
		}
	}))
	defer d.sys.Root.Stop(observer)
	d.server = d.sys.Root.Spawn(actors.NewServerProps(actors.ServerConfig{
		Server: &config.Server{
			ID: "gopls", Command: gopls, Extensions: map[string]string{".go": "go"},
			Settings: map[string]any{"gopls": map[string]any{}},
		},
		Root: d.root, Observers: []*actor.PID{observer}, Reaper: d.reaper,
	}))
	fmt.Fprintf(d.out, "agentlsp demo: gopls on %s\n\n", d.root)
	uri := actors.PathToURI(filepath.Join(d.root, "main.go"))
	steps := []func(context.Context, string) error{d.stepOpen, d.stepKill, d.stepFix}
	for _, step := range steps {
		if err := step(ctx, uri); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) stepOpen(ctx context.Context, uri string) error {
	fmt.Fprintln(d.out, "1. open main.go, which calls an undefined function")
	if err := d.sync(&messages.OpenDocument{URI: uri, LanguageID: "go", Text: brokenMain}); err != nil {
		return err
	}
	return d.printDiagnostics(ctx, uri, func(p *messages.PublishedDiagnostics) bool { return p.Version == 1 })
}

func (d *demo) stepKill(ctx context.Context, uri string) error {
	st, err := d.status()
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "\n2. kill -9 gopls (pid %d); the server actor restarts it and re-opens main.go\n", st.PID)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		return err
	}
	if _, err := d.wait(ctx, func(e any) bool {
		s, ok := e.(*messages.StateChanged)
		if ok {
			fmt.Fprintf(d.out, "   state: %s (incarnation %d)\n", s.State, s.Incarnation)
		}
		return ok && s.State == messages.StateRunning && s.Incarnation == 2
	}); err != nil {
		return err
	}
	return d.printDiagnostics(ctx, uri, func(p *messages.PublishedDiagnostics) bool { return p.Incarnation == 2 })
}

func (d *demo) stepFix(ctx context.Context, uri string) error {
	fmt.Fprintln(d.out, "\n3. define the function")
	if err := d.sync(&messages.ChangeDocument{URI: uri, Text: fixedMain}); err != nil {
		return err
	}
	return d.printDiagnostics(ctx, uri, func(p *messages.PublishedDiagnostics) bool { return p.Version == 2 })
}

func (d *demo) sync(msg any) error {
	res, err := d.sys.Root.RequestFuture(d.server, msg, 30*time.Second).Result()
	if err != nil {
		return err
	}
	return res.(*messages.DocumentSynced).Err
}

func (d *demo) status() (*messages.ServerStatus, error) {
	res, err := d.sys.Root.RequestFuture(d.server, &messages.GetServerStatus{}, 10*time.Second).Result()
	if err != nil {
		return nil, err
	}
	return res.(*messages.ServerStatus), nil
}

func (d *demo) printDiagnostics(ctx context.Context, uri string, match func(*messages.PublishedDiagnostics) bool) error {
	e, err := d.wait(ctx, func(e any) bool {
		p, ok := e.(*messages.PublishedDiagnostics)
		return ok && p.URI == uri && match(p)
	})
	if err != nil {
		return err
	}
	p := e.(*messages.PublishedDiagnostics)
	kept, more := dedup.Cap(p.Diagnostics, dedup.EditedFile)
	return dedup.Render(d.out, "main.go", "fresh", kept, more)
}

func (d *demo) wait(ctx context.Context, pred func(any) bool) (any, error) {
	timeout := time.After(90 * time.Second)
	for {
		select {
		case e := <-d.events:
			if pred(e) {
				return e, nil
			}
		case <-timeout:
			return nil, errors.New("timed out waiting for gopls")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
