package agentlsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestConfigFileChangeIsFresh: a diagnostics call right after a change of
// a server's configuration file (ConfigFiles) is answered by a server
// that read the file as it is now, never fresh with what the server said
// under the old configuration. The fake reads its configuration once, at
// start, as pyright never takes a pyrightconfig.json created after it
// started: before, every answer was fresh and without the new
// configuration's error, for good. The restarts are planned, not
// crashes: with a crash budget of one, the server is never broken.
func TestConfigFileChangeIsFresh(t *testing.T) {
	for _, mode := range []string{"push", "pull"} {
		t.Run(mode, func(t *testing.T) {
			flags := []string{"--config-file", "fake.toml"}
			if mode == "pull" {
				flags = append(flags, "--pull", "--no-push")
			}
			ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
			fake, _ := fakeServer(t, flags...)
			fake.ConfigFiles, fake.MaxRestarts = []string{"fake.toml"}, 1
			rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(fake)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { shutdown(t, rt) })
			s := rt.Session("agent")
			main := filepath.Join(ws, "main.py")
			cfgFile := filepath.Join(ws, "fake.toml")

			if got := configErrors(t, s, main); len(got) != 0 {
				t.Fatalf("before any configuration: %q, want none", got)
			}
			steps := []struct{ text, want string }{
				{"strict", "config: strict"}, // created
				{"basic", "config: basic"},   // changed
				{"", ""},                     // deleted
			}
			for _, st := range steps {
				if st.text == "" {
					err = os.Remove(cfgFile)
				} else {
					err = os.WriteFile(cfgFile, []byte(st.text+"\n"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				got := configErrors(t, s, main)
				if want := []string{st.want}; st.want == "" && len(got) != 0 || st.want != "" && !slices.Equal(got, want) {
					t.Errorf("fresh answer right after fake.toml became %q: %q, want %q", st.text, got, st.want)
				}
			}
			servers, err := rt.Servers(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(servers) != 1 || servers[0].Broken || servers[0].Incarnation != 1+len(steps) {
				t.Errorf("servers = %+v, want one, not broken, in incarnation %d: a restart per change", servers, 1+len(steps))
			}
		})
	}
}

// configErrors asks for main's diagnostics, again while a server starts, and
// returns the fresh answer's configuration errors (code CFG).
func configErrors(t *testing.T, s *agentlsp.Session, main string) []string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		reports, err := s.Diagnostics(ctx, []string{main})
		cancel()
		if err != nil {
			t.Fatalf("Diagnostics: %v", err)
		}
		r := reports[0]
		if r.Status != messages.StatusFresh {
			if r.Status != messages.StatusNotReady || time.Now().After(deadline) {
				t.Fatalf("Diagnostics = %s (%s), want fresh", r.Status, r.Detail)
			}
			continue
		}
		var out []string
		for _, d := range r.Diagnostics {
			if d.Code == "CFG" {
				out = append(out, d.Message)
			}
		}
		return out
	}
}

// TestConfigFileStormAnswersNotReady: while a tool rewrites a server's
// configuration file every 100 ms, a diagnostics call is never fresh
// with a configuration that is no longer on disk: it is answered
// not_ready, and its detail says the configuration is changing (before,
// each batch of the watcher restarted the server, and the answers said
// only "still starting or indexing"). Once the file is quiet, the next
// answer is fresh with its last text.
func TestConfigFileStormAnswersNotReady(t *testing.T) {
	ws := testenv.CopyDir(t, filepath.Join("test", "testdata", "pyproj"))
	fake, _ := fakeServer(t, "--config-file", "fake.toml", "--pull", "--no-push")
	fake.ConfigFiles = []string{"fake.toml"}
	rt, err := agentlsp.Start(context.Background(), agentlsp.Config{Workspace: ws, Registry: config.RegistryOf(fake)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdown(t, rt) })
	s := rt.Session("agent")
	main, cfgFile := filepath.Join(ws, "main.py"), filepath.Join(ws, "fake.toml")
	if got := configErrors(t, s, main); len(got) != 0 {
		t.Fatalf("before any configuration: %q, want none", got)
	}

	var changing string
	for i := 0; i < 60 && changing == ""; i++ {
		if err := os.WriteFile(cfgFile, []byte(fmt.Sprintf("v%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		reports, err := s.Diagnostics(ctx, []string{main}, agentlsp.WithTimeout(100*time.Millisecond))
		cancel()
		if err != nil {
			t.Fatalf("Diagnostics: %v", err)
		}
		r := reports[0]
		if r.Status == messages.StatusFresh && !slices.Contains(errorsOf(r), fmt.Sprintf("config: v%d", i)) {
			t.Fatalf("fresh answer right after fake.toml became v%d: %q", i, errorsOf(r))
		}
		if r.Status == messages.StatusNotReady && strings.Contains(r.Detail, "configuration is changing") {
			changing = r.Detail
		}
		time.Sleep(100 * time.Millisecond)
	}
	if changing == "" {
		t.Fatal("no answer during 60 rewrites of fake.toml said the configuration is changing")
	}
	t.Logf("during the rewrites: not_ready: %s", changing)
	if err := os.WriteFile(cfgFile, []byte("last\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := configErrors(t, s, main); !slices.Equal(got, []string{"config: last"}) {
		t.Errorf("once fake.toml is quiet: %q, want [config: last]", got)
	}
}

// errorsOf returns a report's configuration errors (code CFG).
func errorsOf(r messages.FileReport) []string {
	var out []string
	for _, d := range r.Diagnostics {
		if d.Code == "CFG" {
			out = append(out, d.Message)
		}
	}
	return out
}
