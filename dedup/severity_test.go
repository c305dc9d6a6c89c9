package dedup

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

func TestFilterSeverity(t *testing.T) {
	none, e, w := diag(sevNone, 0, 0, "none"), diag(sevError, 1, 0, "e"), diag(sevWarn, 2, 0, "w")
	i, h, odd := diag(sevInfo, 3, 0, "i"), diag(sevHint, 4, 0, "h"), diag(7, 5, 0, "odd")
	all := []messages.Diagnostic{h, i, w, e, none, odd}
	tests := []struct {
		min  messages.Severity
		want []messages.Diagnostic
	}{
		{sevError, []messages.Diagnostic{e, none}},
		{sevNone, []messages.Diagnostic{e, none}},
		{sevWarn, []messages.Diagnostic{w, e, none}},
		{sevInfo, []messages.Diagnostic{i, w, e, none}},
		{sevHint, all},
		{9, all},
	}
	for _, tt := range tests {
		got := FilterSeverity(all, tt.min)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("FilterSeverity(all, %d) mismatch (-want +got):\n%s", tt.min, diff)
		}
	}
	if got := FilterSeverity(nil, sevHint); got != nil {
		t.Errorf("FilterSeverity(nil, hint) = %v, want nil", got)
	}
}

func TestFilterSeverityDoesNotAlias(t *testing.T) {
	in := []messages.Diagnostic{diag(sevError, 0, 0, "a"), diag(sevError, 1, 0, "b")}
	out := FilterSeverity(in, sevError)
	out[0].Message = "changed"
	if in[0].Message != "a" {
		t.Errorf("FilterSeverity result aliases its input: in[0].Message = %q, want %q", in[0].Message, "a")
	}
}

func TestSort(t *testing.T) {
	tests := []struct {
		name     string
		in, want []messages.Diagnostic
	}{
		{name: "empty"},
		{
			name: "severity first",
			in:   []messages.Diagnostic{diag(sevHint, 0, 0, "h"), diag(sevWarn, 9, 0, "w"), diag(sevInfo, 0, 0, "i"), diag(sevError, 5, 0, "e")},
			want: []messages.Diagnostic{diag(sevError, 5, 0, "e"), diag(sevWarn, 9, 0, "w"), diag(sevInfo, 0, 0, "i"), diag(sevHint, 0, 0, "h")},
		},
		{
			name: "unspecified is an error",
			in:   []messages.Diagnostic{diag(sevWarn, 0, 0, "w"), diag(sevNone, 3, 0, "n"), diag(sevError, 2, 0, "e")},
			want: []messages.Diagnostic{diag(sevError, 2, 0, "e"), diag(sevNone, 3, 0, "n"), diag(sevWarn, 0, 0, "w")},
		},
		{
			name: "then line, column, message",
			in:   []messages.Diagnostic{diag(sevError, 2, 0, "a"), diag(sevError, 1, 7, "a"), diag(sevError, 1, 3, "z"), diag(sevError, 1, 3, "b")},
			want: []messages.Diagnostic{diag(sevError, 1, 3, "b"), diag(sevError, 1, 3, "z"), diag(sevError, 1, 7, "a"), diag(sevError, 2, 0, "a")},
		},
		{
			name: "stable on ties",
			in: []messages.Diagnostic{
				{Severity: sevError, Message: "m", Source: "second"},
				{Severity: sevWarn, Message: "m"},
				{Severity: sevError, Message: "m", Source: "first"},
			},
			want: []messages.Diagnostic{
				{Severity: sevError, Message: "m", Source: "second"},
				{Severity: sevError, Message: "m", Source: "first"},
				{Severity: sevWarn, Message: "m"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := concat(tt.in)
			Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sort(%v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
