package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// The diagnostics pipeline: an edit to fresh diagnostics. Session.Edit
// sends EditStarted, syncs the change through the router and the server
// actor, and waits on the diagnostics actor until the fake's diagnostics
// for the edited version arrive: by a pull (--pull --no-push: released at
// once) or by a push (released after the settle window). The direct
// benchmarks are the floor: the same exchange on a bare transport.

// benchSettle is the settle window of the push benchmarks: short, so the
// benchmark runs enough edits; the overhead metric subtracts it.
const benchSettle = 20 * time.Millisecond

// BenchmarkSessionEditPull is Session.Edit on a pull-capable fake.
func BenchmarkSessionEditPull(b *testing.B) {
	for _, open := range []int{1, 1000} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			benchEdit(b, open, 0, "--pull", "--no-push")
		})
	}
}

// BenchmarkSessionEditPush is Session.Edit on a pushing fake: ns/op
// includes the settle window, overhead-ns/op does not.
func BenchmarkSessionEditPush(b *testing.B) {
	benchEdit(b, 1, benchSettle)
}

// benchEdit edits one document while open documents are open in all (the
// diagnostics actor snapshots its store on every edit).
func benchEdit(b *testing.B, open int, settle time.Duration, flags ...string) {
	ws, file := fakeWorkspace(b, 100)
	rt := startRuntime(b, ws, settle, flags...)
	s := rt.Session("bench")
	ctx := context.Background()
	for i := 1; i < open; i++ {
		other := filepath.Join(ws, fmt.Sprintf("other%d%s", i, fakeExt))
		if err := os.WriteFile(other, []byte(fakeText(10, 1)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := s.Open(ctx, other); err != nil {
			b.Fatal(err)
		}
	}
	texts := [2]string{fakeText(100, 2), fakeText(100, 1)}
	edit := func(i int) {
		res, err := s.Edit(ctx, file, texts[i%2])
		if err != nil || res.Status != messages.StatusFresh {
			b.Fatalf("Edit = %+v, %v", res, err)
		}
		if i%2 == 1 && len(res.Files[0].Diagnostics) != 1 {
			b.Fatalf("Edit reported %+v, want the new error", res.Files)
		}
	}
	edit(0)
	b.ReportAllocs()
	i := 0
	start := time.Now()
	for b.Loop() {
		i++
		edit(i)
	}
	reportOverhead(b, time.Since(start), i, settle)
}

// reportOverhead reports the mean time per edit beyond the settle window.
func reportOverhead(b *testing.B, elapsed time.Duration, n int, settle time.Duration) {
	if settle > 0 && n > 0 {
		b.ReportMetric(float64(elapsed/time.Duration(n)-settle), "overhead-ns/op")
	}
}

// BenchmarkEditDirectPull is the floor of BenchmarkSessionEditPull:
// didChange and a textDocument/diagnostic pull on a bare connection.
func BenchmarkEditDirectPull(b *testing.B) {
	c := directConn(b, nil, "--pull", "--no-push")
	ctx := context.Background()
	uri := paths.URI("/bench/doc" + fakeExt)
	texts := [2]string{fakeText(100, 2), fakeText(100, 1)}
	open(b, c.Notify, uri, texts[0])
	b.ReportAllocs()
	version := 1
	for b.Loop() {
		version++
		change(b, c.Notify, uri, version, texts[version%2])
		raw, err := c.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": uri}})
		if err != nil {
			b.Fatal(err)
		}
		var rep struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Items) != version%2 {
			b.Fatalf("pull = %s, %v", raw, err)
		}
	}
}

// BenchmarkEditDirectPush is the floor of BenchmarkSessionEditPush:
// didChange, then the version-matched publishDiagnostics, then the same
// settle window.
func BenchmarkEditDirectPush(b *testing.B) {
	w := newPushWaiter()
	c := directConn(b, w.onEvent)
	uri := paths.URI("/bench/doc" + fakeExt)
	texts := [2]string{fakeText(100, 2), fakeText(100, 1)}
	open(b, c.Notify, uri, texts[0])
	w.wait(b, 1)
	b.ReportAllocs()
	version, start := 1, time.Now()
	for b.Loop() {
		version++
		change(b, c.Notify, uri, version, texts[version%2])
		w.wait(b, version)
		time.Sleep(benchSettle)
	}
	reportOverhead(b, time.Since(start), version-1, benchSettle)
}

func open(b *testing.B, notify func(string, any) error, uri, text string) {
	err := notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "fake", "version": 1, "text": text}})
	if err != nil {
		b.Fatal(err)
	}
}

// change sends the middle line of text, the one fakeText varies, as an
// incremental change: what the server actor sends for these edits.
func change(b *testing.B, notify func(string, any) error, uri string, version int, text string) {
	lines := strings.SplitAfter(text, "\n")
	mid := (len(lines) - 1) / 2
	err := notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{
			"range": map[string]any{"start": map[string]int{"line": mid}, "end": map[string]int{"line": mid + 1}},
			"text":  lines[mid],
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
}

// pushWaiter records the latest version the fake published diagnostics
// for; wait blocks until it reaches a version.
type pushWaiter struct {
	mu      sync.Mutex
	version int
	changed chan struct{} // closed and replaced on every publication
}

func newPushWaiter() *pushWaiter { return &pushWaiter{changed: make(chan struct{})} }

// onEvent is the connection's OnEvent: it runs on the read loop.
func (w *pushWaiter) onEvent(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return
	}
	var p struct {
		Version int `json:"version"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	w.mu.Lock()
	w.version = max(w.version, p.Version)
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

func (w *pushWaiter) wait(b *testing.B, version int) {
	deadline := time.NewTimer(askTimeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		got, changed := w.version, w.changed
		w.mu.Unlock()
		if got >= version {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			b.Fatalf("no diagnostics for version %d", version)
		}
	}
}
