package config

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// monorepo builds, under a temporary directory, a workspace "ws" (with
// markers above it, in the temporary directory, that must be ignored) and
// returns both.
func monorepo(t *testing.T) (parent, ws string) {
	parent = t.TempDir()
	ws = filepath.Join(parent, "ws")
	for _, f := range []string{
		"go.mod", "deno.json", // above the workspace
		"ws/go.work", "ws/svc/a/go.mod", "ws/svc/a/internal/x/x.go", "ws/svc/b/go.mod", "ws/svc/b/b.go",
		"ws/tools/gen.go",
		"ws/web/app/package.json", "ws/web/app/tsconfig.json", "ws/web/app/src/deep/x.ts",
		"ws/web/deno-app/deno.json", "ws/web/deno-app/package.json", "ws/web/deno-app/lib/mod.ts",
		"ws/web/loose.ts",
		"ws/py/proj/pyproject.toml", "ws/py/proj/pkg/sub/mod.py",
		"ws/native/CMakeLists.txt", "ws/native/build/compile_commands.json", "ws/native/src/a.c",
		"ws/dotnet/App.csproj", "ws/dotnet/src/Program.cs",
		"ws/nowork/m1/go.mod", "ws/nowork/m1/pkg/x.go",
		"ws/scripts/run.sh",
	} {
		writeFile(t, filepath.Join(parent, f), "")
	}
	if err := os.MkdirAll(filepath.Join(ws, "sub", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "sub", "s.sh"), "")
	return parent, ws
}

func TestFindRoot(t *testing.T) {
	parent, ws := monorepo(t)
	b := Builtins()
	noPriority := gopls()
	noPriority.RootMarkerPriority = false
	override := typescriptLS()
	override.Root = "web"
	csharp := &Server{ID: "csharp", RootMarkers: []string{"*.sln", "*.csproj"}}
	p := func(rel string) string { return filepath.Join(ws, rel) }
	tests := []struct {
		name   string
		s      *Server
		file   string
		want   string
		wantOK bool
	}{
		{"go.work beats the nearer go.mod", b["gopls"], p("svc/a/internal/x/x.go"), ws, true},
		{"go.work, second module", b["gopls"], p("svc/b/b.go"), ws, true},
		{"without priority the nearest go.mod", noPriority, p("svc/a/internal/x/x.go"), p("svc/a"), true},
		{"without priority, no go.mod: go.work", noPriority, p("tools/gen.go"), ws, true},
		{"ts package", b["typescript-language-server"], p("web/app/src/deep/x.ts"), p("web/app"), true},
		{"deno package is not served", b["typescript-language-server"], p("web/deno-app/lib/mod.ts"), "", false},
		{"deno.json above the workspace is ignored", b["typescript-language-server"], p("web/loose.ts"), ws, true},
		{"python project, file deeper than the marker", b["pyright"], p("py/proj/pkg/sub/mod.py"), p("py/proj"), true},
		{"clangd nearest marker", b["clangd"], p("native/src/a.c"), p("native"), true},
		{"no marker: the workspace", b["bash-language-server"], p("scripts/run.sh"), ws, true},
		{"a directory as marker", b["bash-language-server"], p("sub/s.sh"), p("sub"), true},
		{"pattern marker", csharp, p("dotnet/src/Program.cs"), p("dotnet"), true},
		{"Root override", override, p("web/app/src/deep/x.ts"), p("web"), true},
		{"Root override still excludes", override, p("web/deno-app/lib/mod.ts"), "", false},
		{"go.mod above the workspace is ignored", noPriority, p("nowork/m1/pkg/x.go"), p("nowork/m1"), true},
		{"file outside the workspace", b["gopls"], filepath.Join(parent, "x.go"), "", false},
		{"sibling with a common prefix is outside", b["gopls"], filepath.Join(parent, "ws2", "x.go"), "", false},
		{"file at the workspace top", b["gopls"], p("main.go"), ws, true},
	}
	for _, tt := range tests {
		got, ok := tt.s.FindRoot(ws, tt.file)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: %s.FindRoot(ws, %s) = %q, %v; want %q, %v", tt.name, tt.s.ID, tt.file, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestFindRootGoplsWithoutWork(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"a/go.mod", "a/cmd/main.go", "b/go.mod", "b/b.go", "loose/x.go"} {
		writeFile(t, filepath.Join(ws, f), "")
	}
	g := gopls()
	tests := []struct{ file, want string }{
		{"a/cmd/main.go", "a"},
		{"b/b.go", "b"},
		{"loose/x.go", "."},
	}
	for _, tt := range tests {
		got, ok := g.FindRoot(ws, filepath.Join(ws, tt.file))
		if want := filepath.Join(ws, tt.want); got != want || !ok {
			t.Errorf("gopls.FindRoot(ws, %s) = %q, %v; want %q, true", tt.file, got, ok, want)
		}
	}
}
