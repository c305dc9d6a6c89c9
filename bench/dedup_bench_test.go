package bench

import (
	"fmt"
	"io"
	"testing"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

// Dedup: the pure structures the diagnostics actor runs on every update,
// on large inputs (a flood of n diagnostics in one file, or many files).

var floodSizes = []int{100, 1000, 10_000}

// diags returns n distinct diagnostics, numbered from first, mixed
// severities, realistic messages.
func diags(first, n int) []messages.Diagnostic {
	out := make([]messages.Diagnostic, n)
	for i := range n {
		k := first + i
		out[i] = messages.Diagnostic{
			Range: messages.Range{
				Start: messages.Position{Line: uint32(k), Character: 4},
				End:   messages.Position{Line: uint32(k), Character: 12},
			},
			Severity: messages.Severity(1 + k%4), Code: "UndeclaredName", Source: "compiler",
			Message: fmt.Sprintf("undefined: identifier%d", k),
		}
	}
	return out
}

// BenchmarkDeliveredFilter: a session is sent a file's n diagnostics, none
// delivered yet (Filter returns and marks them all); Forget then empties
// the file for the next round.
func BenchmarkDeliveredFilter(b *testing.B) {
	for _, n := range floodSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d, all := dedup.NewDelivered(0), diags(0, n)
			b.ReportAllocs()
			for b.Loop() {
				if fresh := d.Filter("file:///a.go", all); len(fresh) != n {
					b.Fatalf("Filter = %d fresh, want %d", len(fresh), n)
				}
				d.Forget("file:///a.go")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/diag")
		})
	}
}

// BenchmarkDeliveredUnseen: the lookups alone, nothing marked.
func BenchmarkDeliveredUnseen(b *testing.B) {
	for _, n := range floodSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := dedup.NewDelivered(0)
			d.Mark("file:///a.go", diags(0, n/2))
			all := diags(0, n)
			b.ReportAllocs()
			for b.Loop() {
				if len(d.Unseen("file:///a.go", all)) != n-n/2 {
					b.Fatal("Unseen miscounted")
				}
			}
		})
	}
}

// BenchmarkDeliveredMarkManyFiles marks 10 diagnostics in each of 1000
// files in turn, twice the LRU's file limit: every Mark evicts a file.
func BenchmarkDeliveredMarkManyFiles(b *testing.B) {
	const files = 2 * dedup.MaxFiles
	uris := make([]string, files)
	for i := range uris {
		uris[i] = fmt.Sprintf("file:///ws/pkg%d/file%d.go", i%50, i)
	}
	ds := diags(0, 10)
	d := dedup.NewDelivered(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Mark(uris[i%files], ds)
		i++
	}
	if want := min(i, dedup.MaxFiles); d.Len() != want {
		b.Fatalf("Len = %d, want %d", d.Len(), want)
	}
}

// BenchmarkDelta compares a baseline with the next set, 10% changed.
func BenchmarkDelta(b *testing.B) {
	for _, n := range floodSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			before, after := diags(0, n), diags(n/10, n)
			b.ReportAllocs()
			for b.Loop() {
				added, removed, _ := dedup.Delta(before, after)
				if len(added) != n/10 || len(removed) != n/10 {
					b.Fatalf("Delta = +%d -%d", len(added), len(removed))
				}
			}
		})
	}
}

// BenchmarkBatch builds a passive batch from 100 files of n/100
// diagnostics each, under the default caps.
func BenchmarkBatch(b *testing.B) {
	for _, n := range floodSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			per := n / 100
			files := make([][]messages.Diagnostic, 100)
			for i := range files {
				files[i] = diags(i*per, per)
			}
			b.ReportAllocs()
			for b.Loop() {
				batch := dedup.NewBatch(0, 0)
				for i, ds := range files {
					batch.Add(fmt.Sprintf("file:///ws/f%d.go", i), ds)
				}
				if len(batch.Files()) == 0 {
					b.Fatal("empty batch")
				}
			}
		})
	}
}

// BenchmarkSortCapRender is what an edit result does with a flood: sort,
// cap to 20, render in the model format.
func BenchmarkSortCapRender(b *testing.B) {
	for _, n := range floodSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src := diags(0, n)
			ds := make([]messages.Diagnostic, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(ds, src)
				dedup.Sort(ds)
				kept, more := dedup.Cap(ds, dedup.EditedFile)
				if err := dedup.Render(io.Discard, "pkg/a.go", "fresh", kept, more); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
