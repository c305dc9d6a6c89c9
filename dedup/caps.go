package dedup

import (
	"slices"

	"github.com/agentlsp/agentlsp/messages"
)

// Cap returns, in a new slice, the first n diagnostics of ds, and how many
// it left out. It keeps the order of ds: callers Sort first to keep the
// most severe. A negative n counts as 0.
func Cap(ds []messages.Diagnostic, n int) (kept []messages.Diagnostic, more int) {
	n = max(n, 0)
	if len(ds) <= n {
		return clone(ds), 0
	}
	return clone(ds[:n]), len(ds) - n
}

// clone returns a copy of ds, nil when ds is empty.
func clone(ds []messages.Diagnostic) []messages.Diagnostic {
	if len(ds) == 0 {
		return nil
	}
	return slices.Clone(ds)
}

// FileDiagnostics is one file's part of a batch: the diagnostics shown, in
// Sort order, and More, how many it lost to the caps.
type FileDiagnostics struct {
	URI         string
	Diagnostics []messages.Diagnostic
	More        int
}

// Batch builds a passive diagnostics batch under two caps: at most perFile
// diagnostics per file, the most severe first, and at most perBatch across
// the batch, errors first across files (an error in a later file beats a
// warning in an earlier file; between equal severities the earlier file
// wins). It keeps at most perFile diagnostics per file, so its memory does
// not grow with a flood.
//
// A Batch is not safe for concurrent use: it is owned by one actor. None of
// its methods blocks.
type Batch struct {
	perFile, perBatch int
	files             []*batchFile
	index             map[string]int // URI -> position in files
}

// batchFile is one file of a Batch: its most severe diagnostics, sorted,
// at most perFile, and how many it lost to the per-file cap.
type batchFile struct {
	uri  string
	kept []messages.Diagnostic
	lost int
}

// NewBatch returns an empty Batch with the given caps; a cap <= 0 means its
// default (PerFile, PerBatch).
func NewBatch(perFile, perBatch int) *Batch {
	if perFile <= 0 {
		perFile = PerFile
	}
	if perBatch <= 0 {
		perBatch = PerBatch
	}
	return &Batch{perFile: perFile, perBatch: perBatch, index: make(map[string]int)}
}

// Add adds diagnostics for uri to the batch. It does not keep ds. Adding
// the same uri again adds to that file's diagnostics (several servers may
// serve one file); the file keeps its first-seen place. Adding no
// diagnostics for a new uri adds nothing.
func (b *Batch) Add(uri string, ds []messages.Diagnostic) {
	if len(ds) == 0 {
		return
	}
	i, ok := b.index[uri]
	if !ok {
		i = len(b.files)
		b.index[uri] = i
		b.files = append(b.files, &batchFile{uri: uri})
	}
	f := b.files[i]
	all := make([]messages.Diagnostic, 0, len(f.kept)+len(ds))
	all = append(append(all, f.kept...), ds...)
	Sort(all)
	var lost int
	f.kept, lost = Cap(all, b.perFile)
	f.lost += lost
}

// Files returns the batch's files in first-seen order, each with the
// diagnostics that fit both caps and More, exactly what it lost to either
// cap. A file whose diagnostics all lost to the batch cap is listed with
// no Diagnostics and its More. Files does not change the batch.
func (b *Batch) Files() []FileDiagnostics {
	shown := b.shownPerFile()
	var out []FileDiagnostics
	for i, f := range b.files {
		n := shown[i]
		out = append(out, FileDiagnostics{
			URI:         f.uri,
			Diagnostics: clone(f.kept[:n]),
			More:        f.lost + len(f.kept) - n,
		})
	}
	return out
}

// shownPerFile returns how many of each file's kept diagnostics fit the
// batch cap. It fills the batch severity by severity, and within a severity
// file by file in first-seen order. As each file's kept diagnostics are
// sorted by severity, what a file shows is a prefix of them.
func (b *Batch) shownPerFile() []int {
	shown := make([]int, len(b.files))
	budget := b.perBatch
	for sev := messages.SeverityError; sev <= messages.SeverityHint; sev++ {
		for i, f := range b.files {
			for shown[i] < len(f.kept) && budget > 0 && rank(f.kept[shown[i]].Severity) == sev {
				shown[i]++
				budget--
			}
		}
	}
	return shown
}
