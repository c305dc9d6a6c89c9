package router_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/router"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/test/actortest"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestRouterForwardsDiskChanges: a server that registered file watchers
// hears of matching changes on disk (glob honoured, created/changed/deleted
// as such); an open document changed on disk is re-synced instead, its
// change not forwarded as well (gopls diagnoses twice otherwise), and its
// deletion forwarded.
func TestRouterForwardsDiskChanges(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	record := filepath.Join(t.TempDir(), "record.jsonl")
	reg := `client/registerCapability={"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles",` +
		`"registerOptions":{"watchers":[{"globPattern":"**/*.py"}]}}]}`
	def := actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil, "--record", record, "--server-request", reg)
	router := h.Router(ws, config.RegistryOf(def), func(c *router.Config) {
		c.Watch, c.WatchDebounce = true, 20*time.Millisecond
	})
	app := filepath.Join(ws, "py", "pkg", "app.py")
	lib := filepath.Join(ws, "py", "pkg", "lib.py")
	os.WriteFile(lib, []byte("y = 1\n"), 0o644)
	h.Sync(router, "agent", app, messages.SyncChange, "def f() -> int:\n    return 1\n")
	testenv.Eventually(t, 10*time.Second, "registration answered", func() bool {
		return len(responses(testenv.Records(t, record))) > 0
	})

	os.WriteFile(filepath.Join(ws, "py", "pkg", "new.py"), []byte("x = 1\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "py", "README.md"), []byte("not watched\n"), 0o644)
	os.WriteFile(lib, []byte("y = 2\n"), 0o644)
	os.WriteFile(app, []byte("def f() -> int:\n    return 2  # edited on disk\n"), 0o644)

	testenv.Eventually(t, 10*time.Second, "didChangeWatchedFiles with new.py and lib.py", func() bool {
		return containsAll(watchedChanges(t, testenv.Records(t, record)), "created py/pkg/new.py", "changed py/pkg/lib.py")
	})
	uri := paths.URI(app)
	testenv.Eventually(t, 10*time.Second, "app.py re-synced from disk", func() bool {
		res := h.FileRequest(router, app, "fake/documentText", map[string]string{"uri": uri})
		return len(res.Results) == 1 && strings.Contains(string(res.Results[0].Result), "edited on disk")
	})
	// The server actor handles a batch before the re-sync it causes: by
	// now any change of app.py it forwarded is on record.
	for _, c := range watchedChanges(t, testenv.Records(t, record)) {
		if strings.Contains(c, "README") || strings.Contains(c, "app.py") {
			t.Errorf("forwarded %q; want neither an unwatched file nor the open document's change", c)
		}
	}
	os.Remove(filepath.Join(ws, "py", "pkg", "new.py"))
	os.Remove(app)
	testenv.Eventually(t, 10*time.Second, "deletions forwarded, the open document's too", func() bool {
		return containsAll(watchedChanges(t, testenv.Records(t, record)), "deleted py/pkg/new.py", "deleted py/pkg/app.py")
	})
	// Every batch of the writes came before the deletions'.
	if have := watchedChanges(t, testenv.Records(t, record)); slices.ContainsFunc(have, func(c string) bool {
		return c == "changed py/pkg/app.py" || c == "created py/pkg/app.py"
	}) {
		t.Errorf("the open document's change was forwarded: %v", have)
	}
}

func responses(rs []testenv.Record) []testenv.Record {
	var out []testenv.Record
	for _, r := range rs {
		if r.Kind == "response" {
			out = append(out, r)
		}
	}
	return out
}

// watchedChanges lists "type relpath" for every change the fake received.
func watchedChanges(t *testing.T, rs []testenv.Record) []string {
	var out []string
	for _, r := range rs {
		if r.Method != "workspace/didChangeWatchedFiles" {
			continue
		}
		var p struct {
			Changes []struct {
				URI  string `json:"uri"`
				Type int    `json:"type"`
			} `json:"changes"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			path := paths.FromURI(c.URI)
			i := strings.Index(path, "/py/")
			out = append(out, messages.FileChangeType(c.Type).String()+" "+path[i+1:])
		}
	}
	return out
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// TestDocumentRequestFollowsASymlinkChange: a document request through a
// symlink is about what the link points at when it is asked, though the
// router remembers resolved paths: the change on disk before the request
// reaches the router first.
func TestDocumentRequestFollowsASymlinkChange(t *testing.T) {
	h, ws, router := watchedPyRouter(t)
	dir := filepath.Join(ws, "py", "pkg")
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "x.py"), []byte("in "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	for i, target := range []string{"a", "b", "a"} {
		os.Remove(link)
		if err := os.Symlink(filepath.Join(dir, target), link); err != nil {
			t.Fatal(err)
		}
		uri, text := documentText(t, h, router, uint64(i+1), filepath.Join(link, "x.py")) // right after the change
		if uri != paths.URI(filepath.Join(dir, target, "x.py")) || text != "in "+target+"\n" {
			t.Errorf("link to %s: the request was about %s (%q)", target, uri, text)
		}
	}
}

// TestBarrierSendsRewritesAheadOfTheCall: a request made right after an
// open document was rewritten on disk reaches its server after the new
// text, though it is about another file, is sent without a session (no
// check of its own file), and the router releases it as soon as the
// re-sync is handed to the server actor: the server actor takes the text
// first.
func TestBarrierSendsRewritesAheadOfTheCall(t *testing.T) {
	h, ws, router := watchedPyRouter(t)
	app, lib := openAppAndLib(t, h, router, ws)
	for i := 1; i <= 20; i++ {
		want := fmt.Sprintf("x = %d\n", i)
		if err := os.WriteFile(app, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if text := textAskingOther(t, h, router, lib, app); text != want {
			t.Fatalf("rewrite %d: the server had %q when asked; want %q", i, text, want)
		}
	}
}

// TestDocumentRequestSeesRewritesWatchedOrNot: a document request right
// after its file was rewritten on disk is about the new text, for a file
// the watcher reports (the barrier re-syncs it) and for one in a directory
// the watcher ignores (build/: only comparing it with the disk tells).
func TestDocumentRequestSeesRewritesWatchedOrNot(t *testing.T) {
	h, ws, router := watchedPyRouter(t)
	for _, rel := range []string{"py/pkg/app.py", "py/pkg/build/gen.py"} {
		path := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			want := fmt.Sprintf("x = %d\n", i*1000) // a new size each time: a stat tells them apart
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, text := documentText(t, h, router, uint64(i+1), path); text != want {
				t.Errorf("%s, rewrite %d: the server had %q when asked; want %q", rel, i, text, want)
			}
		}
	}
}

// watchedPyRouter starts a router on a monorepo with a fake Python server
// and a watcher whose batches go out only for barriers; edits change the
// router's configuration further.
func watchedPyRouter(t *testing.T, edits ...func(*router.Config)) (*actortest.Harness, string, *actor.PID) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	def := actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil)
	return h, ws, h.Router(ws, config.RegistryOf(def), func(c *router.Config) {
		c.Watch, c.WatchDebounce = true, time.Hour // only the requests' own barriers flush
		for _, edit := range edits {
			edit(c)
		}
	})
}

// openAppAndLib writes py/pkg/app.py and lib.py and opens both from disk.
func openAppAndLib(t *testing.T, h *actortest.Harness, router *actor.PID, ws string) (app, lib string) {
	t.Helper()
	app, lib = filepath.Join(ws, "py", "pkg", "app.py"), filepath.Join(ws, "py", "pkg", "lib.py")
	for _, p := range []string{app, lib} {
		if err := os.WriteFile(p, []byte("x = 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fs := h.Sync(router, "agent", p, messages.SyncCurrent, ""); fs.Err != nil {
			t.Fatalf("open %s: %v", p, fs.Err)
		}
	}
	return app, lib
}

// textAskingOther asks the fake, in a request about one file (without a
// session: no check of its own), for the text it has of another.
func textAskingOther(t *testing.T, h *actortest.Harness, router *actor.PID, about, of string) string {
	t.Helper()
	res := h.FileRequest(router, about, "fake/documentText", map[string]string{"uri": paths.URI(of)})
	if res.Err != nil || len(res.Results) != 1 || res.Results[0].Err != nil {
		t.Fatalf("request about %s: %+v", about, res)
	}
	var doc struct{ Text string }
	if err := json.Unmarshal(res.Results[0].Result, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Text
}

// documentText asks the fake, through a session's document request, for
// the text it has of path; it returns the request's URI and the text.
func documentText(t *testing.T, h *actortest.Harness, router *actor.PID, id uint64, path string) (string, string) {
	t.Helper()
	res := h.Ask(router, &messages.FileRequest{ID: id, Session: "agent", Path: path,
		Method: "fake/documentText"}).(*messages.FileResponse)
	if res.Err != nil || len(res.Results) != 1 || res.Results[0].Err != nil {
		t.Fatalf("request %d about %s: %+v", id, path, res)
	}
	var doc struct{ Text string }
	if err := json.Unmarshal(res.Results[0].Result, &doc); err != nil {
		t.Fatal(err)
	}
	return res.URI, doc.Text
}

// TestBlindFileSystemChangeReachesTheNextCall: on a file system whose
// changes made elsewhere raise no events (the watcher's FileSystem says
// nfs), an open file changed where the watcher cannot see it (through a
// hard link from outside the workspace: inotify reports a write under the
// directory it was made through) reaches its server before the next
// call, even one about another file.
func TestBlindFileSystemChangeReachesTheNextCall(t *testing.T) {
	h, ws, router := watchedPyRouter(t, func(c *router.Config) {
		c.WatchFileSystem = func(string) string { return "nfs" }
	})
	app, lib := openAppAndLib(t, h, router, ws)
	elsewhere := filepath.Join(t.TempDir(), "app.py")
	if err := os.Link(app, elsewhere); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		want := fmt.Sprintf("x = %d\n", i*1000) // a new size each time: a stat tells them apart
		if err := os.WriteFile(elsewhere, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if text := textAskingOther(t, h, router, lib, app); text != want {
			t.Fatalf("change %d: the server had %q of app.py when asked about lib.py; want %q", i, text, want)
		}
	}
}

// TestChangedFilesOpenOnServersThatLoadThemLate: on a server whose
// definition opens changed files (OpenChanged, rust-analyzer's: it reads a
// changed file in a loader of its own and answered from the file as it
// was), a file nobody has open that changes on disk is opened with its new
// text after the change is forwarded and before the call the change held
// back; the least recently changed beyond the limit are closed, and of a
// batch naming more files than the limit only the last are opened. A
// server without it hears of the change only.
func TestChangedFilesOpenOnServersThatLoadThemLate(t *testing.T) {
	h := actortest.New(t)
	ws := actortest.Monorepo(t)
	record := filepath.Join(t.TempDir(), "record.jsonl")
	plain := filepath.Join(t.TempDir(), "plain.jsonl")
	reg := `client/registerCapability={"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles",` +
		`"registerOptions":{"watchers":[{"globPattern":"**/*"}]}}]}`
	late := actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil, "--record", record, "--server-request", reg)
	late.OpenChanged = 2
	other := actortest.FakeDef(t, "fake-go", []string{".go"}, []string{"go.mod"}, nil, "--record", plain, "--server-request", reg)
	// Batches go out when a call asks for a barrier: each of the writes
	// below is in the batch of the call after it.
	router := h.Router(ws, config.RegistryOf(late, other), func(c *router.Config) {
		c.Watch, c.WatchDebounce = true, time.Hour
	})
	app := filepath.Join(ws, "py", "pkg", "app.py")
	goFile := filepath.Join(ws, "svc-a", "a.go")
	hover := func() {
		h.FileRequest(router, app, "textDocument/hover", map[string]any{
			"textDocument": map[string]string{"uri": paths.URI(app)}, "position": map[string]int{"line": 0, "character": 0}})
	}
	h.Sync(router, "agent", app, messages.SyncCurrent, "")
	h.Sync(router, "agent", goFile, messages.SyncCurrent, "")
	testenv.Eventually(t, 10*time.Second, "registrations answered", func() bool {
		return len(responses(testenv.Records(t, record))) > 0 && len(responses(testenv.Records(t, plain))) > 0
	})

	write := func(rel, text string) string {
		p := filepath.Join(ws, rel)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("py/pkg/lib.py", "y = 2\n")
	write("svc-a/util.go", "package a\n")
	// The call comes after the change: the router holds it until the
	// change is handled, lib.py opened among it.
	hover()
	got := sequence(t, testenv.Records(t, record), "py/pkg/")
	want := []string{"watched py/pkg/lib.py", "open py/pkg/lib.py y = 2\n", "textDocument/hover"}
	if i := slices.Index(got, want[0]); i < 0 || !slices.Equal(got[i:min(i+3, len(got))], want) {
		t.Fatalf("the late-loading server got %q, want %q in order", got, want)
	}
	for _, s := range sequence(t, testenv.Records(t, plain), "svc-a/") {
		if strings.HasPrefix(s, "open svc-a/util.go") {
			t.Errorf("a server without OpenChanged had util.go opened: %q", s)
		}
	}

	// Three more changes in one batch: two are opened (the limit), the
	// third not at all, and lib.py, the least recently changed, is closed.
	for _, f := range []string{"one", "two", "three"} {
		write("py/pkg/"+f+".py", f+" = 1\n")
	}
	hover()
	got = sequence(t, testenv.Records(t, record), "py/pkg/")
	var opened []string
	for _, f := range []string{"one", "two", "three"} {
		if slices.Contains(got, "open py/pkg/"+f+".py "+f+" = 1\n") {
			opened = append(opened, f)
		}
	}
	if len(opened) != 2 || !slices.Contains(got, "close py/pkg/lib.py") || slices.ContainsFunc(got, func(s string) bool {
		return strings.HasPrefix(s, "close py/pkg/") && s != "close py/pkg/lib.py"
	}) {
		t.Fatalf("after a batch of three changes, opened %v and got %q; want two opened, lib.py closed and nothing else", opened, got)
	}
	// A kept file that changes again is re-synced, as an open one is.
	kept := filepath.Join(ws, "py/pkg/"+opened[0]+".py")
	write("py/pkg/"+opened[0]+".py", "again = 2\n")
	res := h.FileRequest(router, kept, "fake/documentText", map[string]string{"uri": paths.URI(kept)})
	if len(res.Results) != 1 || !strings.Contains(string(res.Results[0].Result), "again = 2") {
		t.Errorf("the text of %s after it changed again = %+v, want the disk's", kept, res.Results)
	}
}

// sequence lists what the fake received about files under dir, in order:
// "watched REL" for a change forwarded, "open REL TEXT", "close REL", and
// the method of every request.
func sequence(t *testing.T, rs []testenv.Record, dir string) []string {
	rel := func(uri string) string {
		p := paths.FromURI(uri)
		if i := strings.Index(p, "/"+dir); i >= 0 {
			return p[i+1:]
		}
		return ""
	}
	var out []string
	for _, r := range rs {
		var p struct {
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			Changes []struct {
				URI string `json:"uri"`
			} `json:"changes"`
		}
		_ = json.Unmarshal(r.Params, &p)
		switch {
		case r.Method == "workspace/didChangeWatchedFiles":
			for _, c := range p.Changes {
				if f := rel(c.URI); f != "" {
					out = append(out, "watched "+f)
				}
			}
		case r.Method == "textDocument/didOpen" && rel(p.TextDocument.URI) != "":
			out = append(out, "open "+rel(p.TextDocument.URI)+" "+p.TextDocument.Text)
		case r.Method == "textDocument/didClose" && rel(p.TextDocument.URI) != "":
			out = append(out, "close "+rel(p.TextDocument.URI))
		case r.Kind == "request":
			out = append(out, r.Method)
		}
	}
	return out
}

// TestReadMeetingAWriteWaitsForIt: a file the router reads from disk for a
// change it was told of can meet another write, begun after that change:
// the writer truncated the file, the read found it empty, and the write
// came after. That text never goes to the server, nor is a call answered
// about it: the router reads again once the writer is done, whether the
// write was over before the read came back to the router (a batch named
// the file again) or not (the watcher held the file back as being written).
func TestReadMeetingAWriteWaitsForIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		// checked: the router had to ask the watcher about the read (a
		// writer kept the file open past the reads a lease refused).
		checked bool
		// finish writes the rest and closes the file, after the read.
		finish func(f *os.File, wg *sync.WaitGroup)
	}{
		{"the write over before the read is taken", false, func(f *os.File, _ *sync.WaitGroup) {
			f.WriteString("x = 2\n")
			f.Close()
		}},
		{"the writer still writing when the read is taken", true, func(f *os.File, wg *sync.WaitGroup) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(300 * time.Millisecond)
				f.WriteString("x = 2\n")
				f.Close()
			}()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Cleanups run last first: the hook goes, and the writer is
			// waited for, after the harness stopped the router.
			var wg sync.WaitGroup
			t.Cleanup(wg.Wait)
			var armed atomic.Pointer[string]
			t.Cleanup(router.SetReadHook(func(abs string) func() {
				if want := armed.Load(); want == nil || *want != abs || !armed.CompareAndSwap(want, nil) {
					return nil
				}
				// A writer begins after the change the read is for: it
				// truncates the file and writes the rest once the read is done.
				f, err := os.OpenFile(abs, os.O_WRONLY|os.O_TRUNC, 0o644)
				if err != nil {
					t.Error(err)
					return nil
				}
				return func() { tc.finish(f, &wg) }
			}))
			h := actortest.New(t)
			ws := actortest.Monorepo(t)
			record := filepath.Join(t.TempDir(), "record.jsonl")
			def := actortest.FakeDef(t, "fake-py", []string{".py"}, []string{"pyproject.toml"}, nil, "--record", record)
			rt := h.Router(ws, config.RegistryOf(def), func(c *router.Config) {
				c.Watch, c.WatchDebounce = true, 20*time.Millisecond
			})
			app := filepath.Join(ws, "py", "pkg", "app.py")
			if err := os.WriteFile(app, []byte("x = 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if fs := h.Sync(rt, "agent", app, messages.SyncCurrent, ""); fs.Err != nil {
				t.Fatal(fs.Err)
			}
			serverText := func() string {
				t.Helper()
				res := h.FileRequest(rt, app, "fake/documentText", map[string]string{"uri": paths.URI(app)})
				if len(res.Results) != 1 || res.Results[0].Err != nil {
					t.Fatalf("documentText: %+v", res)
				}
				var doc struct{ Text string }
				if err := json.Unmarshal(res.Results[0].Result, &doc); err != nil {
					t.Fatal(err)
				}
				return doc.Text
			}
			// The watcher's first walk has reached the file's directory
			// once a change there reaches the server before a call.
			n := 0
			testenv.Eventually(t, 10*time.Second, "the watcher sees app.py change", func() bool {
				n++
				text := fmt.Sprintf("x = %d\n", n)
				if err := os.WriteFile(app, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return serverText() == text
			})
			armed.Store(&app)
			if err := os.WriteFile(app, []byte("x = 1000\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := serverText(); got != "x = 2\n" {
				t.Errorf("the server had %q when the call was answered; want the writer's whole text %q", got, "x = 2\n")
			}
			if armed.Load() != nil {
				t.Fatal("the read the writer was to meet never came")
			}
			// The writer's close reaches the router before the next call:
			// nothing is left in flight when the harness stops it.
			wg.Wait()
			if got := serverText(); got != "x = 2\n" {
				t.Errorf("the server has %q once the writer is done; want %q", got, "x = 2\n")
			}
			for _, text := range sentTexts(t, testenv.Records(t, record), paths.URI(app)) {
				if text == "" {
					t.Error("the server was sent the emptied file")
				}
			}
			st := h.Ask(rt, &messages.GetRouterStatus{}).(*messages.RouterStatus)
			if st.Barriers.Reread == 0 || tc.checked && st.Barriers.Checked == 0 {
				t.Errorf("barrier stats %+v: want a read done again (and checked: %v)", st.Barriers, tc.checked)
			}
		})
	}
}

// sentTexts lists the whole texts the fake was sent for uri, in order:
// didOpen's, and each full-text didChange's.
func sentTexts(t *testing.T, rs []testenv.Record, uri string) []string {
	var out []string
	for _, r := range rs {
		var p struct {
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Range *json.RawMessage `json:"range"`
				Text  string           `json:"text"`
			} `json:"contentChanges"`
		}
		if r.Method != "textDocument/didOpen" && r.Method != "textDocument/didChange" {
			continue
		}
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.TextDocument.URI != uri {
			continue
		}
		if r.Method == "textDocument/didOpen" {
			out = append(out, p.TextDocument.Text)
		}
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				out = append(out, c.Text)
			}
		}
	}
	return out
}
