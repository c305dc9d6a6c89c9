//go:build linux

package watcher

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestDrainReadsWhatIsQueued: drain hands on, before it returns, the
// events the kernel has queued, numbered after those handed on before,
// without the reader (not started here: nothing else reads).
func TestDrainReadsWhatIsQueued(t *testing.T) {
	src, err := newSource(false)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := src.(*inotify)
	dir := t.TempDir()
	if err := n.Add(dir); err != nil {
		t.Fatal(err)
	}
	var got []string
	var seqs []uint64
	n.mu.Lock()
	n.buf = make([]byte, 64<<10)
	n.deliver = func(seq uint64, evs []fsnotify.Event, err error) {
		seqs = append(seqs, seq)
		for _, ev := range evs {
			got = append(got, filepath.Base(ev.Name)+" "+ev.Op.String())
		}
	}
	n.mu.Unlock()

	n.drain() // nothing queued
	if len(seqs) != 0 {
		t.Fatalf("drain with nothing queued handed on batches %v", seqs)
	}
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n.drain()
	for _, want := range []string{"a CREATE", "a WRITE", "b CREATE", "b WRITE"} {
		if !slices.Contains(got, want) {
			t.Errorf("drain handed on %v; want %q among them", got, want)
		}
	}
	if len(seqs) == 0 || seqs[0] != 1 {
		t.Errorf("batches numbered %v; want from 1", seqs)
	}
	if sent, waiting := n.queued(); waiting || sent != uint64(len(seqs)) {
		t.Errorf("queued() = %d, %v after the drain; want %d, false", sent, waiting, len(seqs))
	}
}
