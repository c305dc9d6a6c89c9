package dedup

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

func TestCap(t *testing.T) {
	three := diags(sevError, 3, "x")
	tests := []struct {
		ds   []messages.Diagnostic
		n    int
		want []messages.Diagnostic
		more int
	}{
		{nil, 5, nil, 0},
		{three, 5, three, 0},
		{three, 3, three, 0},
		{three, 2, three[:2], 1},
		{three, 0, nil, 3},
		{three, -1, nil, 3},
	}
	for _, tt := range tests {
		got, more := Cap(tt.ds, tt.n)
		if diff := cmp.Diff(tt.want, got); diff != "" || more != tt.more {
			t.Errorf("Cap(%d diagnostics, %d) = more %d, want %d; kept (-want +got):\n%s",
				len(tt.ds), tt.n, more, tt.more, diff)
		}
	}
}

// add is one Batch.Add call.
type add struct {
	uri string
	ds  []messages.Diagnostic
}

func TestBatch(t *testing.T) {
	errs, warns := diags(sevError, 40, "e"), diags(sevWarn, 40, "w")
	tests := []struct {
		name              string
		perFile, perBatch int
		adds              []add
		want              []FileDiagnostics
	}{
		{name: "empty batch"},
		{
			name: "empty files omitted",
			adds: []add{{"a", nil}, {"b", errs[:1]}, {"c", []messages.Diagnostic{}}},
			want: []FileDiagnostics{{URI: "b", Diagnostics: errs[:1]}},
		},
		{
			name: "per-file cap after severity sort",
			adds: []add{{"a", concat(warns[:5], errs[:12])}},
			want: []FileDiagnostics{{URI: "a", Diagnostics: errs[:10], More: 7}},
		},
		{
			name: "per-batch cap in first-seen order",
			adds: []add{{"a", errs[:10]}, {"b", errs[:10]}, {"c", errs[:10]}, {"d", errs[:10]}},
			want: []FileDiagnostics{
				{URI: "a", Diagnostics: errs[:10]}, {URI: "b", Diagnostics: errs[:10]},
				{URI: "c", Diagnostics: errs[:10]}, {URI: "d", More: 10},
			},
		},
		{
			name:    "errors first across files",
			perFile: 10, perBatch: 6,
			adds: []add{{"a", warns[:5]}, {"b", errs[:4]}, {"c", concat(warns[:3], errs[:3])}},
			want: []FileDiagnostics{
				{URI: "a", More: 5},
				{URI: "b", Diagnostics: errs[:4]},
				{URI: "c", Diagnostics: errs[:2], More: 4},
			},
		},
		{
			name:    "both caps count in More",
			perFile: 4, perBatch: 6,
			adds: []add{{"a", concat(warns[:3], errs[:3])}, {"b", concat(errs[:5], warns[:2])}},
			want: []FileDiagnostics{
				{URI: "a", Diagnostics: errs[:3], More: 3}, // 2 per file, 1 per batch
				{URI: "b", Diagnostics: errs[:3], More: 4}, // 3 per file, 1 per batch
			},
		},
		{
			name:    "same file added twice merges in first-seen place",
			perFile: 3, perBatch: 30,
			adds: []add{{"a", warns[:3]}, {"b", errs[:1]}, {"a", errs[5:7]}},
			want: []FileDiagnostics{
				{URI: "a", Diagnostics: concat(errs[5:7], warns[:1]), More: 2},
				{URI: "b", Diagnostics: errs[:1]},
			},
		},
		{
			name:    "unspecified severity counts as error",
			perFile: 10, perBatch: 1,
			adds: []add{{"a", warns[:1]}, {"b", []messages.Diagnostic{diag(sevNone, 0, 0, "n")}}},
			want: []FileDiagnostics{
				{URI: "a", More: 1},
				{URI: "b", Diagnostics: []messages.Diagnostic{diag(sevNone, 0, 0, "n")}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBatch(tt.perFile, tt.perBatch)
			for _, a := range tt.adds {
				b.Add(a.uri, a.ds)
			}
			if diff := cmp.Diff(tt.want, b.Files()); diff != "" {
				t.Errorf("NewBatch(%d, %d).Files() mismatch (-want +got):\n%s", tt.perFile, tt.perBatch, diff)
			}
		})
	}
}

func TestBatchDoesNotKeepInput(t *testing.T) {
	in := []messages.Diagnostic{diag(sevWarn, 0, 0, "w"), diag(sevError, 1, 0, "e")}
	b := NewBatch(0, 0)
	b.Add("a", in)
	in[1].Message = "changed"
	want := []FileDiagnostics{{URI: "a", Diagnostics: []messages.Diagnostic{diag(sevError, 1, 0, "e"), diag(sevWarn, 0, 0, "w")}}}
	if diff := cmp.Diff(want, b.Files()); diff != "" {
		t.Errorf("Files() after changing Add's input mismatch (-want +got):\n%s", diff)
	}
	if in[0].Message != "w" {
		t.Errorf("Add reordered its input: in[0].Message = %q, want %q", in[0].Message, "w")
	}
}

func TestBatchFlood(t *testing.T) {
	const files, perFile = 1000, 100 // 100,000 diagnostics
	b := NewBatch(PerFile, PerBatch)
	for f := range files {
		var ds []messages.Diagnostic
		for i := range perFile {
			sev := messages.Severity(1 + (f+i)%4)
			ds = append(ds, diag(sev, uint32(i), 0, "flood"))
		}
		b.Add(fmt.Sprintf("file:///f%d.go", f), ds)
	}
	var shown, more, nonErrors int
	got := b.Files()
	for _, fd := range got {
		if len(fd.Diagnostics) > PerFile {
			t.Errorf("file %s shows %d diagnostics, want <= %d", fd.URI, len(fd.Diagnostics), PerFile)
		}
		for _, d := range fd.Diagnostics {
			if d.Severity != sevError {
				nonErrors++
			}
		}
		shown += len(fd.Diagnostics)
		more += fd.More
	}
	if len(got) != files || shown != PerBatch || more != files*perFile-PerBatch || nonErrors != 0 {
		t.Errorf("flood of %d: files, shown, more, non-errors = %d, %d, %d, %d, want %d, %d, %d, 0",
			files*perFile, len(got), shown, more, nonErrors, files, PerBatch, files*perFile-PerBatch)
	}
	// Memory: the batch keeps at most PerFile diagnostics per file.
	for _, f := range b.files {
		if len(f.kept) > PerFile {
			t.Fatalf("batch keeps %d diagnostics for %s, want <= %d", len(f.kept), f.uri, PerFile)
		}
	}
}
