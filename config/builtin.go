package config

import (
	"encoding/json"
	"time"
)

// installHint is the command that installs built-in server id's pinned
// version (the recipes are in package install).
func installHint(id string) string { return "agentlsp servers --install " + id }

// Builtins returns the built-in server definitions by ID. Each call returns
// fresh values that the caller owns. Servers that would double-serve a
// language another built-in serves (pylsp, tsgo) are disabled.
func Builtins() map[string]*Server {
	list := []*Server{
		gopls(), pyright(), typescriptLS(), tsgo(), clangd(), rustAnalyzer(),
		bashLS(), yamlLS(), dockerfileLS(), pylsp(),
		extracted("vscode-json-language-server", map[string]string{".json": "json", ".jsonc": "jsonc"}),
		extracted("vscode-css-language-server", map[string]string{".css": "css", ".scss": "scss", ".less": "less"}),
		extracted("vscode-html-language-server", map[string]string{".html": "html", ".htm": "html"}),
	}
	m := make(map[string]*Server, len(list))
	for _, s := range list {
		m[s.ID] = s
	}
	return m
}

func gopls() *Server {
	return &Server{
		ID:         "gopls",
		Command:    "gopls", // with no arguments gopls serves LSP on stdio
		Extensions: map[string]string{".go": "go"},
		Filenames:  map[string]string{"go.mod": "go.mod", "go.work": "go.work"},
		// A go.work anywhere up to the workspace is the root of all its
		// modules; otherwise the nearest go.mod.
		RootMarkers:        []string{"go.work", "go.mod"},
		RootMarkerPriority: true,
		// gopls asks for the "gopls" section before it answers initialize.
		// No Env: gopls's telemetry helper child stops only when the Go
		// telemetry mode is off (`go telemetry off`), not with GOTELEMETRY;
		// the transport kills the process group anyway.
		// diagnosticsDelay 0: gopls otherwise publishes its analyzers'
		// findings (printf, unusedfunc, ...) a second after the type
		// errors, after an edit's wait has settled; agents do not type
		// keystroke by keystroke, so the delay only hides diagnostics.
		// symbolScope workspace: a workspace symbol search otherwise fills
		// its answer with the standard library's symbols.
		// verboseWorkDoneProgress: gopls reports a "diagnosing" work around
		// the diagnosis of every change; its end is the signal that every
		// diagnostic of the change was published (no settle window).
		Settings: map[string]any{"gopls": map[string]any{"diagnosticsDelay": "0s", "symbolScope": "workspace",
			"verboseWorkDoneProgress": true}},
		// gopls type-checks a closed file's package again for every hover
		// into it; an open one stays checked (7 ms against 0.6 on x/tools).
		OpenTargets: 8,
		InstallHint: installHint("gopls"),
	}
}

func pythonMarkers() []string {
	return []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"}
}

func pyright() *Server {
	return &Server{
		ID:          "pyright",
		Command:     "pyright-langserver",
		Args:        []string{"--stdio"},
		Extensions:  map[string]string{".py": "python", ".pyi": "python"},
		RootMarkers: pythonMarkers(),
		// It diagnoses open files only: a change's importers are opened
		// first, so that its answer reports what broke in them.
		OpenImporters: 5,
		// It answers references before it has found the workspace's source
		// files, and logs this once it has.
		ReadyLog: `^(Found \d+ source files?|No source files found)`,
		// An unparsable pyproject.toml or pyrightconfig.json is logged so;
		// pyright then checks with its defaults, not the project's settings.
		LoadError: `^Config file ".*" could not be (parsed|read)`,
		// The language server reads its configuration from the root's
		// pyrightconfig.json, else its pyproject.toml, and takes a change
		// only of the file it read, some 250 ms later, in its own time: a
		// change restarts it.
		ConfigFiles: []string{"pyproject.toml", "pyrightconfig.json"},
		InstallHint: installHint("pyright"),
	}
}

// pylsp is disabled: pyright serves Python. pylsp reports nothing without
// pyflakes, hence the extra packages.
func pylsp() *Server {
	return &Server{
		ID:          "pylsp",
		Command:     "pylsp",
		Extensions:  map[string]string{".py": "python"},
		RootMarkers: pythonMarkers(),
		Disabled:    true,
		InstallHint: installHint("pylsp"),
	}
}

func tsExtensions() map[string]string {
	return map[string]string{
		".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
		".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript",
	}
}

func typescriptLS() *Server {
	return &Server{
		ID:          "typescript-language-server",
		Command:     "typescript-language-server",
		Args:        []string{"--stdio"},
		Extensions:  tsExtensions(),
		RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
		// Deno projects belong to deno's own server.
		ExcludeMarkers: []string{"deno.json", "deno.jsonc"},
		// Without it typescript-language-server drops didChangeWatchedFiles
		// and tsserver watches the disk itself: a module deleted and made
		// again went unseen for tens of seconds, while the importer's
		// answers said fresh. With it, tsserver hears of every change from
		// agentlsp's watcher, before the barrier it waits on is released.
		InitializationOptions: json.RawMessage(`{"tsserver":{"useClientFileWatcher":true}}`),
		// tsserver has no project before one of its files is open: a symbol
		// search of the workspace answered "No Project".
		OpenForWorkspace: true,
		// It publishes nothing when a file stays clean: an edit that kept a
		// file clean waited for the timeout and came back stale.
		DiagnosticsPull: PullTSServer,
		// It diagnoses open files only: a change's importers are opened
		// first, so that its answer reports what broke in them.
		OpenImporters: 5,
		// Its answers while "Initializing JS/TS language features" (about a
		// second on a small project) can be wrong, not only incomplete.
		IndexWait: Duration(5 * time.Second),
		// tsserver takes an edit of the tsconfig.json a file belongs to in
		// place, but not a nearer one created or deleted: a file stayed in
		// the project it was opened in, and its answers said fresh with
		// that project's settings for as long as it ran (tsc -p uses the
		// nearer one). A change restarts it.
		ConfigFiles: []string{"**/tsconfig.json", "**/jsconfig.json"},
		InstallHint: installHint("typescript-language-server"),
	}
}

// tsgo is TypeScript 7's native server, the tsgo command of the npm
// package @typescript/native-preview. It is disabled because
// typescript-language-server serves the same files. Its command is tsgo,
// never tsc: the tsc of agentlsp's cache is TypeScript 5's (installed for
// typescript-language-server), which has no --lsp and exits at once. It
// offers pull diagnostics only.
func tsgo() *Server {
	s := typescriptLS()
	s.ID = "tsgo"
	s.Command = "tsgo"
	s.Args = []string{"--lsp", "--stdio"}
	s.InitializationOptions = nil // typescript-language-server's
	s.DiagnosticsPull = ""
	s.Disabled = true
	s.InstallHint = "npm install -g @typescript/native-preview"
	return s
}

func clangd() *Server {
	return &Server{
		ID:      "clangd",
		Command: "clangd",
		Extensions: map[string]string{
			".c": "c", ".h": "c",
			".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
		},
		RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"},
		// clangd 14 reads a directory's compile flags once: a
		// compile_flags.txt or compile_commands.json created, edited or
		// deleted later was not taken, and an open file's answers said
		// fresh with the old flags (a -D that decides whether it compiles).
		// It looks for them in every directory above a file (and its
		// build/): a change restarts it.
		// build/compile_commands.json, in a directory the watcher does
		// not look into, is stat'ed at every message about a document.
		ConfigFiles: []string{"**/compile_commands.json", "**/compile_flags.txt", "**/.clangd", "build/compile_commands.json"},
		InstallHint: installHint("clangd"),
	}
}

func rustAnalyzer() *Server {
	return &Server{
		ID:          "rust-analyzer",
		Command:     "rust-analyzer",
		Extensions:  map[string]string{".rs": "rust"},
		RootMarkers: []string{"Cargo.toml", "rust-project.json"},
		// Without it rust-analyzer stalls ~36 s on crates.io when offline.
		Env: map[string]string{"CARGO_NET_OFFLINE": "true"},
		// It answers pulls while it loads its workspace ("Fetching": cargo
		// metadata), with nothing: a file with a type error was answered
		// fresh and clean. Such answers are asked again once it is loaded.
		IndexWait: Duration(20 * time.Second),
		// It reads a file changed on disk in its loader thread, and
		// answered the pull that followed the change from the file as it
		// was, in 10 of 30 rounds of a checkout soak; open, the file's
		// text is the one sent.
		OpenChanged: 32,
		// Borrow-checker errors come from cargo check alone, which it runs
		// after its workspace loads and after each save; an answer that
		// did not wait for it said a file with a moved value was clean.
		// Its title is the command: "cargo check", "cargo clippy" when
		// the user's settings say so, "cargo check (#2)" for a second
		// workspace.
		CheckOnSave: "cargo ",
		InstallHint: installHint("rust-analyzer"),
	}
}

// bashLS reports diagnostics only through shellcheck.
func bashLS() *Server {
	return &Server{
		ID:          "bash-language-server",
		Command:     "bash-language-server",
		Args:        []string{"start"},
		Extensions:  map[string]string{".sh": "shellscript", ".bash": "shellscript"},
		RootMarkers: []string{".git"},
		InstallHint: installHint("bash-language-server"),
	}
}

func yamlLS() *Server {
	return &Server{
		ID:          "yaml-language-server",
		Command:     "yaml-language-server",
		Args:        []string{"--stdio"},
		Extensions:  map[string]string{".yaml": "yaml", ".yml": "yaml"},
		RootMarkers: []string{".git"},
		// Otherwise it downloads the schema store's catalogue.
		Settings:    map[string]any{"yaml": map[string]any{"schemaStore": map[string]any{"enable": false}}},
		InstallHint: installHint("yaml-language-server"),
	}
}

func dockerfileLS() *Server {
	return &Server{
		ID:          "dockerfile-language-server",
		Command:     "docker-langserver",
		Args:        []string{"--stdio"},
		Extensions:  map[string]string{".dockerfile": "dockerfile"},
		Filenames:   map[string]string{"Dockerfile": "dockerfile", "Containerfile": "dockerfile"},
		RootMarkers: []string{".git"},
		InstallHint: "npm install -g dockerfile-language-server-nodejs",
	}
}

// extracted is one of the servers of vscode-langservers-extracted.
func extracted(id string, exts map[string]string) *Server {
	return &Server{
		ID:          id,
		Command:     id,
		Args:        []string{"--stdio"},
		Extensions:  exts,
		RootMarkers: []string{"package.json", ".git"},
		InstallHint: installHint(id),
	}
}
