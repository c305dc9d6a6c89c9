package router

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlsp/agentlsp/config"
)

func TestSourceFile(t *testing.T) {
	def := &config.Server{Extensions: map[string]string{".ts": "typescript"}, RootMarkers: []string{"tsconfig.json"}}
	for _, c := range []struct {
		name  string
		files []string
		want  string // relative to the root; "" for none
	}{
		{"least deep first", []string{"tsconfig.json", "src/deep/a.ts", "src/b.TS", "README.md"}, "src/b.TS"},
		{"not in an ignored directory", []string{"node_modules/x/index.ts", "lib/c.ts"}, "lib/c.ts"},
		{"not below another root", []string{"pkg/tsconfig.json", "pkg/a.ts", "app/src/b.ts"}, "app/src/b.ts"},
		{"none", []string{"main.go", "pkg/tsconfig.json", "pkg/a.ts"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range c.files {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := ""
			if c.want != "" {
				want = filepath.Join(root, c.want)
			}
			if got := sourceFile(root, def); got != want {
				t.Errorf("sourceFile = %q, want %q", got, want)
			}
		})
	}
}

func TestInstalled(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		def  config.Server
		want bool
	}{
		{config.Server{Command: exe}, true},
		{config.Server{Command: filepath.Join(t.TempDir(), "no-such-server")}, false},
		{config.Server{Command: "sh"}, true},
		{config.Server{Command: "agentlsp-no-such-server"}, false},
		{config.Server{Command: "agentlsp-no-such-server", Env: map[string]string{"PATH": "/opt/x"}}, true}, // its own PATH: the start tells
		{config.Server{Command: "./bin/server"}, true},                                                      // relative to the root: the start tells
	} {
		if got := installed(&c.def); got != c.want {
			t.Errorf("installed(%q, env %v) = %v, want %v", c.def.Command, c.def.Env, got, c.want)
		}
	}
}
