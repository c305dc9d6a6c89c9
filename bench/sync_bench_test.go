package bench

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// Document sync: SyncDocument round trips through the router for a
// one-line change, on documents of growing size, with the fake asking for
// incremental sync (the server actor sends the changed range, computed as
// common prefix and suffix) or for full sync (the whole text every time).
// The router answers once the change is queued; a hover every flushEvery
// changes waits until the fake has read them all, so ns/op is the
// sustained cost including the wire and the fake's parsing.

const flushEvery = 32

// BenchmarkSyncDocument is a one-line change of an open document.
func BenchmarkSyncDocument(b *testing.B) {
	for _, lines := range []int{100, 10_000, 100_000} {
		for _, mode := range []string{"incremental", "full"} {
			b.Run(fmt.Sprintf("lines=%d/sync=%s", lines, mode), func(b *testing.B) {
				benchSync(b, lines, "--no-push", "--sync", mode)
			})
		}
	}
}

func benchSync(b *testing.B, lines int, flags ...string) {
	ws, file := fakeWorkspace(b, lines)
	p := startPipeline(b, ws, flags...)
	texts := [2]string{fakeText(lines, 0), fakeText(lines, 2)}
	p.sync(b, file, messages.SyncChange, texts[0])
	var ids atomic.Uint64
	flush := func() { p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams) }
	flush()
	b.SetBytes(int64(len(texts[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if fs := p.sync(b, file, messages.SyncChange, texts[i%2]); !fs.Servers[0].Changed {
			b.Fatal("change not sent")
		}
		if i%flushEvery == 0 {
			flush()
		}
	}
	flush()
}

// BenchmarkSyncOpenClose opens and closes a small document: the router's
// reference counting and the server actor's didOpen/didClose.
func BenchmarkSyncOpenClose(b *testing.B) {
	ws, file := fakeWorkspace(b, 100)
	p := startPipeline(b, ws, "--no-push")
	text := fakeText(100, 0)
	var ids atomic.Uint64
	p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		p.sync(b, file, messages.SyncChange, text)
		p.sync(b, file, messages.SyncClose, "")
		if i%flushEvery == 0 {
			p.fileRequest(b, ids.Add(1), file, "textDocument/hover", hoverParams)
		}
	}
}
