package reach

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

func (goLang) reach(file, root string, graph map[string][]string) *Reach {
	module := goModule(root)
	importPath := func(dir string) string {
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." {
			return module
		}
		return module + "/" + filepath.ToSlash(rel)
	}
	importers := make(map[string][]string) // import path -> importing packages
	for f, imps := range graph {
		from := importPath(filepath.Dir(f))
		for _, imp := range imps {
			importers[imp] = append(importers[imp], from)
		}
	}
	pkgs := closure(importPath(filepath.Dir(file)), importers)
	r := &Reach{lang: goLang{}, dirs: make(map[string]bool)}
	for f := range graph {
		if _, ok := pkgs[importPath(filepath.Dir(f))]; ok {
			r.dirs[filepath.Dir(f)] = true
		}
	}
	r.dirs[filepath.Dir(file)] = true
	return r
}

// goModule is the module path of root's go.mod ("" when none).
func goModule(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
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

func (pyLang) reach(file, root string, graph map[string][]string) *Reach {
	moduleOf := func(f string) string {
		rel, _ := filepath.Rel(root, trimExt(f))
		return strings.TrimSuffix(strings.ReplaceAll(filepath.ToSlash(rel), "/", "."), ".__init__")
	}
	importers := make(map[string][]string)
	for f, imps := range graph {
		for _, imp := range imps {
			// "from a.b import c" may name module a.b or a.b.c; a relative
			// import names a module of its own package.
			if strings.HasPrefix(imp, ".") {
				imp = strings.TrimSuffix(moduleOf(filepath.Dir(f)+"/x"), ".x") + imp
			}
			importers[imp] = append(importers[imp], moduleOf(f))
		}
	}
	mods := closure(moduleOf(file), importers)
	r := &Reach{lang: pyLang{}, files: map[string]bool{file: true}, origin: file, depth: map[string]int{file: 0}}
	for f := range graph {
		if d, ok := mods[moduleOf(f)]; ok {
			r.files[f], r.depth[f] = true, d
		}
	}
	return r
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

func (tsLang) reach(file, _ string, graph map[string][]string) *Reach {
	importers := make(map[string][]string) // file without extension -> importers
	for f, imps := range graph {
		for _, imp := range imps {
			importers[imp] = append(importers[imp], trimExt(f))
			importers[imp+"/index"] = append(importers[imp+"/index"], trimExt(f))
		}
	}
	reached := closure(trimExt(file), importers)
	r := &Reach{lang: tsLang{}, files: make(map[string]bool), origin: file, depth: make(map[string]int)}
	for f := range graph {
		if d, ok := reached[trimExt(f)]; ok {
			r.files[f], r.depth[f] = true, d
		}
	}
	r.files[file], r.depth[file] = true, 0
	return r
}
