package dedup

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

func TestDelta(t *testing.T) {
	a, b, c := diag(sevError, 1, 0, "a"), diag(sevError, 2, 0, "b"), diag(sevWarn, 3, 0, "c")
	tests := []struct {
		name                      string
		before, after             []messages.Diagnostic
		added, removed, remaining []messages.Diagnostic
	}{
		{name: "both empty"},
		{name: "all new", after: []messages.Diagnostic{a, b}, added: []messages.Diagnostic{a, b}},
		{name: "all gone", before: []messages.Diagnostic{a, b}, removed: []messages.Diagnostic{a, b}},
		{
			name:   "unchanged, reordered",
			before: []messages.Diagnostic{a, b}, after: []messages.Diagnostic{b, a},
			remaining: []messages.Diagnostic{b, a},
		},
		{
			name:   "mixed keeps after order and before order",
			before: []messages.Diagnostic{c, a, b}, after: []messages.Diagnostic{b, c, diag(sevError, 9, 0, "n")},
			added: []messages.Diagnostic{diag(sevError, 9, 0, "n")}, removed: []messages.Diagnostic{a},
			remaining: []messages.Diagnostic{b, c},
		},
		{
			name:   "duplicate added",
			before: []messages.Diagnostic{a}, after: []messages.Diagnostic{a, b, a},
			added: []messages.Diagnostic{b, a}, remaining: []messages.Diagnostic{a},
		},
		{
			name:   "duplicate removed",
			before: []messages.Diagnostic{a, a, b}, after: []messages.Diagnostic{a},
			removed: []messages.Diagnostic{a, b}, remaining: []messages.Diagnostic{a},
		},
		{
			name:   "duplicates kept",
			before: []messages.Diagnostic{a, a}, after: []messages.Diagnostic{a, a},
			remaining: []messages.Diagnostic{a, a},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed, remaining := Delta(tt.before, tt.after)
			got := [][]messages.Diagnostic{added, removed, remaining}
			want := [][]messages.Diagnostic{tt.added, tt.removed, tt.remaining}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Delta(%v, %v) = [added removed remaining] mismatch (-want +got):\n%s",
					tt.before, tt.after, diff)
			}
		})
	}
}

// TestSmallDeltaIsMapDelta: the pair-by-pair Delta of small sets answers
// as the map's, duplicates and order included, on every kind of overlap.
func TestSmallDeltaIsMapDelta(t *testing.T) {
	pool := []messages.Diagnostic{diag(sevError, 1, 0, "a"), diag(sevError, 1, 0, "b"), diag(sevWarn, 1, 0, "a"),
		diag(sevError, 2, 0, "a")}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() []messages.Diagnostic {
		var ds []messages.Diagnostic
		for range rng.IntN(SmallSet + 1) {
			ds = append(ds, pool[rng.IntN(len(pool))])
		}
		return ds
	}
	for range 2000 {
		before, after := pick(), pick()
		a1, r1, k1 := smallDelta(before, after)
		a2, r2, k2 := mapDelta(before, after)
		if diff := cmp.Diff([][]messages.Diagnostic{a2, r2, k2}, [][]messages.Diagnostic{a1, r1, k1}); diff != "" {
			t.Fatalf("smallDelta(%v, %v) differs from mapDelta (-map +small):\n%s", before, after, diff)
		}
	}
}
