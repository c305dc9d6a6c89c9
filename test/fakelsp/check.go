package fakelsp

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkMarker yields a diagnostic of --check-on-save's check alone, never
// of a pull or a push after a change: rust-analyzer's borrow-checker errors
// come from cargo check alone.
const checkMarker = "BORROW:"

// checkTitle is the check's progress title, rust-analyzer's.
const checkTitle = "cargo check"

// maxCheckedFiles bounds the files one check reads.
const maxCheckedFiles = 1000

// startCheck is --check-on-save's check of the files on disk, run after
// initialized and on each didSave, as rust-analyzer runs cargo check: in a
// work done progress titled "cargo check", it reads the files under the
// working directory (the project root) when the work begins; after
// --check-on-save it pushes a diagnostic for each line with the marker of
// each file that has one (with the open document's version, none for a
// closed file), and an empty push for each file that had one at the check
// before and has none now; then the work ends, and the client is asked to
// pull again (workspace/diagnostic/refresh). With --check-stale-last, a
// file with more than one finding gets three pushes: the first finding,
// all of them, then the first alone again.
func (s *server) startCheck() {
	s.checks++
	token := "fake-check-" + strconv.Itoa(s.checks)
	s.call(s.internalID(), "window/workDoneProgress/create", map[string]any{"token": token}, func(*message) {
		s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "begin", "title": checkTitle}})
		bodies := s.checkBodies()
		refreshID := s.internalID()
		s.calls[idKey(refreshID)] = nil // the answer is read on the loop
		refresh := mustJSON(&message{JSONRPC: "2.0", ID: refreshID, Method: "workspace/diagnostic/refresh"})
		s.sched.after(s.cfg.checkOnSave, func() {
			for _, b := range bodies {
				s.write(b)
			}
			s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end"}})
			s.write(refresh)
		})
	})
}

// checkBodies reads the files on disk and builds the check's publications.
func (s *server) checkBodies() [][]byte {
	open := make(map[string]*document, len(s.docs))
	for _, d := range s.docs {
		if u, err := url.Parse(d.uri); err == nil {
			open[filepath.Clean(u.Path)] = d
		}
	}
	root, _ := os.Getwd()
	found := map[string]bool{}
	var bodies [][]byte
	n := 0
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case e.IsDir() && path != root && strings.HasPrefix(e.Name(), "."):
			return filepath.SkipDir
		case e.IsDir() || !e.Type().IsRegular():
			return nil
		}
		if n++; n > maxCheckedFiles {
			return filepath.SkipAll
		}
		text, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(text), checkMarker) {
			return nil
		}
		found[path] = true
		diags := checkDiagnostics(string(text), s.utf8)
		if s.cfg.checkStaleLast && len(diags) > 1 {
			// As rust-analyzer once did under load: the file's findings so
			// far, all of them, then the first ones again, last.
			bodies = append(bodies, s.checkBody(path, open[path], diags[:1]), s.checkBody(path, open[path], diags))
			diags = diags[:1]
		}
		bodies = append(bodies, s.checkBody(path, open[path], diags))
		return nil
	})
	for path := range s.checked {
		if !found[path] {
			bodies = append(bodies, s.checkBody(path, open[path], []diagnostic{}))
		}
	}
	s.checked = found
	return bodies
}

// checkBody is the publication of diags for the file at path, with the
// version of d, its open document, if any.
func (s *server) checkBody(path string, d *document, diags []diagnostic) []byte {
	p := publishParams{URI: (&url.URL{Scheme: "file", Path: path}).String(), Diagnostics: diags}
	if d != nil {
		p.URI = d.uri
		v := d.version
		p.Version = &v
	}
	return mustJSON(&message{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics", Params: mustJSON(&p)})
}

// checkDiagnostics finds the check's marker in text, as computeDiagnostics
// finds the others.
func checkDiagnostics(text string, utf8 bool) []diagnostic {
	diags := []diagnostic{}
	forEachLine(text, func(n int, line string) {
		if i := strings.Index(line, checkMarker); i >= 0 {
			diags = append(diags, diagnostic{
				Range: lspRange{
					Start: position{Line: n, Character: columnOf(line, i, utf8)},
					End:   position{Line: n, Character: columnOf(line, len(line), utf8)},
				},
				Severity: 1, Code: "E0382", Source: "rustc",
				Message: strings.TrimSpace(line[i+len(checkMarker):]),
			})
		}
	})
	return diags
}
