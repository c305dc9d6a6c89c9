package reach

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentlsp/agentlsp/paths"
)

// goLang: a package is a directory; a change reaches its own package and
// every package of the module that imports it, transitively.
type goLang struct{}

func (goLang) markers() []string { return []string{"go.mod"} }
func (goLang) byDir() bool       { return true }
func (goLang) source(p string) bool {
	return strings.HasSuffix(p, ".go")
}

func (goLang) parse(p string, src []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	var out []string
	for _, imp := range f.Imports {
		if s, err := strconv.Unquote(imp.Path.Value); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// nodes: a file's node is its package's import path. The function is
// called from several goroutines (a derived graph is shared).
func (goLang) nodes(root string) func(string) string {
	module := goModule(root)
	return func(file string) string {
		rel, err := filepath.Rel(root, filepath.Dir(file))
		if err != nil || rel == "." {
			return module
		}
		return module + "/" + filepath.ToSlash(rel)
	}
}

func (goLang) edges(_ func(string) string, _ string, imports []string) []string { return imports }

// goModule is the module path of root's go.mod ("" when none).
func goModule(root string) string {
	b, err := paths.ReadRegular(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// pyLang: a module is a file (a package's __init__ stands for its
// directory); a change reaches the modules that import it, transitively.
type pyLang struct{}

var pyImport = regexp.MustCompile(`(?m)^\s*(?:from\s+([.\w]+)\s+import|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))`)

func (pyLang) markers() []string {
	return []string{"pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"}
}
func (pyLang) byDir() bool { return false }
func (pyLang) source(p string) bool {
	return strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".pyi")
}

func (pyLang) parse(p string, src []byte) []string {
	var out []string
	for _, m := range pyImport.FindAllStringSubmatch(string(src), -1) {
		if m[1] != "" {
			out = append(out, m[1])
			continue
		}
		for _, name := range strings.Split(m[2], ",") {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// nodes: a file's node is its module's dotted name (a package's
// __init__ is the package).
func (pyLang) nodes(root string) func(string) string {
	return func(f string) string {
		rel, _ := filepath.Rel(root, trimExt(f))
		return strings.TrimSuffix(strings.ReplaceAll(filepath.ToSlash(rel), "/", "."), ".__init__")
	}
}

// edges: "from a.b import c" may name module a.b or a.b.c; a relative
// import names a module of the file's own package.
func (pyLang) edges(node func(string) string, file string, imports []string) []string {
	out := make([]string, 0, len(imports))
	for _, imp := range imports {
		if strings.HasPrefix(imp, ".") {
			imp = strings.TrimSuffix(node(filepath.Dir(file)+"/x"), ".x") + imp
		}
		out = append(out, imp)
	}
	return out
}

// tsLang: a file reaches the files that import it by a relative path,
// transitively.
type tsLang struct{}

var tsImport = regexp.MustCompile(`(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.[^"']*)["']`)

func (tsLang) markers() []string { return []string{"tsconfig.json", "jsconfig.json", "package.json"} }
func (tsLang) byDir() bool       { return false }
func (tsLang) source(p string) bool {
	switch filepath.Ext(p) {
	case ".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs":
		return true
	}
	return false
}

func (tsLang) parse(p string, src []byte) []string {
	var out []string
	for _, m := range tsImport.FindAllStringSubmatch(string(src), -1) {
		out = append(out, trimExt(filepath.Join(filepath.Dir(p), m[1])))
	}
	return out
}

// nodes: a file's node is its path without extension.
func (tsLang) nodes(string) func(string) string { return trimExt }

// edges: an import of a directory is of its index file.
func (tsLang) edges(_ func(string) string, _ string, imports []string) []string {
	out := make([]string, 0, 2*len(imports))
	for _, imp := range imports {
		out = append(out, imp, imp+"/index")
	}
	return out
}
