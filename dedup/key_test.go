package dedup

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

func TestKeyOf(t *testing.T) {
	base := messages.Diagnostic{
		Range: messages.Range{
			Start: messages.Position{Line: 3, Character: 4},
			End:   messages.Position{Line: 3, Character: 9},
		},
		Severity: sevError,
		Code:     "UndeclaredName",
		Source:   "compiler",
		Message:  "undefined: foo",
	}
	with := func(change func(*messages.Diagnostic)) messages.Diagnostic {
		d := base
		change(&d)
		return d
	}
	tests := []struct {
		name  string
		other messages.Diagnostic
		equal bool
	}{
		{"identical", base, true},
		{"message", with(func(d *messages.Diagnostic) { d.Message = "undefined: bar" }), false},
		{"severity", with(func(d *messages.Diagnostic) { d.Severity = sevWarn }), false},
		{"unspecified severity", with(func(d *messages.Diagnostic) { d.Severity = sevNone }), false},
		{"range start", with(func(d *messages.Diagnostic) { d.Range.Start.Character = 5 }), false},
		{"range end", with(func(d *messages.Diagnostic) { d.Range.End.Line = 4 }), false},
		{"source", with(func(d *messages.Diagnostic) { d.Source = "vet" }), false},
		{"code", with(func(d *messages.Diagnostic) { d.Code = "" }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KeyOf(base) == KeyOf(tt.other); got != tt.equal {
				t.Errorf("KeyOf(base) == KeyOf(%+v) = %v, want %v", tt.other, got, tt.equal)
			}
		})
	}
}

func TestKeyOfFields(t *testing.T) {
	d := diag(sevWarn, 1, 2, "msg")
	d.Source, d.Code = "src", "C1"
	want := Key{Message: "msg", Severity: sevWarn, Range: d.Range, Source: "src", Code: "C1"}
	if diff := cmp.Diff(want, KeyOf(d)); diff != "" {
		t.Errorf("KeyOf(%+v) mismatch (-want +got):\n%s", d, diff)
	}
}

// TestUnion: a followed by what b adds, each key of b once, in a new
// slice; the same below and above the size where pairs stop being
// compared one by one.
func TestUnion(t *testing.T) {
	d := func(m string) messages.Diagnostic {
		return messages.Diagnostic{Message: m, Severity: messages.SeverityError}
	}
	for _, n := range []int{3, 20} {
		var a, b, want []messages.Diagnostic
		for i := range n {
			a = append(a, d(fmt.Sprint("a", i)))
			b = append(b, d(fmt.Sprint("a", i)), d(fmt.Sprint("b", i)), d(fmt.Sprint("b", i)))
		}
		a = append(a, a[0]) // a's own duplicates stay
		want = append(want, a...)
		for i := range n {
			want = append(want, d(fmt.Sprint("b", i)))
		}
		got := Union(a, b)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Union of %d and %d = %v, want %v", len(a), len(b), got, want)
		}
		if got = Union(nil, b[:2]); &got[0] == &b[0] || len(got) != 2 {
			t.Errorf("Union(nil, b) = %v, want a new slice of 2", got)
		}
	}
}
