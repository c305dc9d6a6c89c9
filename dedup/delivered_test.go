package dedup

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

// step is one call on a Delivered in a scripted scenario.
type step struct {
	op   string // filter, sync, unseen, mark, retain, forget
	uri  string
	ds   []messages.Diagnostic
	want []messages.Diagnostic // what filter, sync and unseen return
}

// run plays steps on d and reports the first mismatch.
func run(t *testing.T, d *Delivered, steps []step) {
	t.Helper()
	for i, s := range steps {
		var got []messages.Diagnostic
		switch s.op {
		case "filter":
			got = d.Filter(s.uri, s.ds)
		case "sync":
			got = d.Sync(s.uri, s.ds)
		case "unseen":
			got = d.Unseen(s.uri, s.ds)
		case "mark":
			d.Mark(s.uri, s.ds)
		case "retain":
			d.Retain(s.uri, s.ds)
		case "forget":
			d.Forget(s.uri)
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("step %d: %s(%q, %v) mismatch (-want +got):\n%s", i, s.op, s.uri, s.ds, diff)
		}
	}
}

func TestDelivered(t *testing.T) {
	a, b, c := diag(sevError, 1, 0, "a"), diag(sevError, 2, 0, "b"), diag(sevWarn, 3, 0, "c")
	ds := func(d ...messages.Diagnostic) []messages.Diagnostic { return d }
	tests := []struct {
		name  string
		steps []step
	}{
		{"second delivery suppressed", []step{
			{op: "filter", uri: "f", ds: ds(a, b), want: ds(a, b)},
			{op: "filter", uri: "f", ds: ds(a, b)},
			{op: "filter", uri: "f", ds: ds(b, c, a), want: ds(c)},
		}},
		{"duplicates within a call returned once", []step{
			{op: "filter", uri: "f", ds: ds(a, a, b, a), want: ds(a, b)},
		}},
		{"files are separate", []step{
			{op: "filter", uri: "f", ds: ds(a), want: ds(a)},
			{op: "filter", uri: "g", ds: ds(a), want: ds(a)},
		}},
		{"forget reports again", []step{
			{op: "filter", uri: "f", ds: ds(a), want: ds(a)},
			{op: "forget", uri: "f"},
			{op: "filter", uri: "f", ds: ds(a), want: ds(a)},
		}},
		{"filter keeps vanished keys", []step{
			{op: "filter", uri: "f", ds: ds(a, b), want: ds(a, b)},
			{op: "filter", uri: "f", ds: ds(b)},
			{op: "filter", uri: "f", ds: ds(a, b)},
		}},
		{"sync drops vanished keys", []step{
			{op: "sync", uri: "f", ds: ds(a, b), want: ds(a, b)},
			{op: "sync", uri: "f", ds: ds(b, c), want: ds(c)},
			{op: "sync", uri: "f", ds: ds(a, b, c), want: ds(a)},
		}},
		{"sync with nothing forgets", []step{
			{op: "sync", uri: "f", ds: ds(a), want: ds(a)},
			{op: "sync", uri: "f"},
			{op: "sync", uri: "f", ds: ds(a), want: ds(a)},
		}},
		{"unseen does not mark", []step{
			{op: "unseen", uri: "f", ds: ds(a, b, a), want: ds(a, b)},
			{op: "unseen", uri: "f", ds: ds(a, b), want: ds(a, b)},
			{op: "mark", uri: "f", ds: ds(a)},
			{op: "unseen", uri: "f", ds: ds(a, b), want: ds(b)},
			{op: "filter", uri: "f", ds: ds(a, b), want: ds(b)},
		}},
		{"retain drops vanished keys without marking", []step{
			{op: "mark", uri: "f", ds: ds(a, b)},
			{op: "retain", uri: "f", ds: ds(b, c)},
			{op: "unseen", uri: "f", ds: ds(a, b, c), want: ds(a, c)},
			{op: "retain", uri: "f"},
			{op: "unseen", uri: "f", ds: ds(b), want: ds(b)},
			{op: "retain", uri: "unknown", ds: ds(a)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, NewDelivered(0), tt.steps)
		})
	}
}

func TestDeliveredSessionsIndependent(t *testing.T) {
	a := []messages.Diagnostic{diag(sevError, 1, 0, "a")}
	s1, s2 := NewDelivered(0), NewDelivered(0)
	run(t, s1, []step{{op: "filter", uri: "f", ds: a, want: a}})
	run(t, s2, []step{{op: "filter", uri: "f", ds: a, want: a}})
	run(t, s1, []step{{op: "filter", uri: "f", ds: a}})
	run(t, s2, []step{{op: "filter", uri: "f", ds: a}})
}

func TestDeliveredEviction(t *testing.T) {
	d := NewDelivered(0)
	a := []messages.Diagnostic{diag(sevError, 1, 0, "a")}
	uri := func(i int) string { return fmt.Sprintf("file:///f%03d.go", i) }
	for i := range MaxFiles {
		run(t, d, []step{{op: "filter", uri: uri(i), ds: a, want: a}})
	}
	if got := d.Len(); got != MaxFiles {
		t.Fatalf("Len() = %d, want %d", got, MaxFiles)
	}
	// Touch file 0: file 1 becomes the least recently used.
	run(t, d, []step{{op: "filter", uri: uri(0), ds: a}})
	// The 501st file evicts file 1, which is then reported again; file 0
	// and file 2 are still remembered.
	run(t, d, []step{
		{op: "filter", uri: uri(MaxFiles), ds: a, want: a},
		{op: "unseen", uri: uri(0), ds: a},
		{op: "unseen", uri: uri(2), ds: a},
		{op: "filter", uri: uri(1), ds: a, want: a},
	})
	if got := d.Len(); got != MaxFiles {
		t.Errorf("Len() = %d, want %d", got, MaxFiles)
	}
}

func TestDeliveredMaxFiles(t *testing.T) {
	tests := []struct{ maxFiles, want int }{{-1, MaxFiles}, {0, MaxFiles}, {3, 3}}
	a := []messages.Diagnostic{diag(sevError, 1, 0, "a")}
	for _, tt := range tests {
		d := NewDelivered(tt.maxFiles)
		for i := range 2 * MaxFiles {
			d.Filter(fmt.Sprint(i), a)
		}
		if got := d.Len(); got != tt.want {
			t.Errorf("NewDelivered(%d) after %d files: Len() = %d, want %d", tt.maxFiles, 2*MaxFiles, got, tt.want)
		}
	}
}

// keyCount returns the number of keys d remembers across its files.
func keyCount(d *Delivered) int {
	n := 0
	for _, set := range d.files.Values() {
		n += set.len()
	}
	return n
}

func TestDeliveredFloodBounded(t *testing.T) {
	const flood = 100_000
	ds := make([]messages.Diagnostic, flood)
	for i := range ds {
		ds[i] = diag(sevError, uint32(i), 0, "flood")
	}
	d := NewDelivered(0)
	if got := len(d.Filter("f", ds)); got != flood {
		t.Errorf("first Filter(f, %d distinct) returned %d, want %d", flood, got, flood)
	}
	if got := keyCount(d); got != MaxKeysPerFile {
		t.Errorf("keys remembered after Filter(f, %d distinct) = %d, want %d", flood, got, MaxKeysPerFile)
	}
	// The unrecorded ones come again; the recorded ones do not.
	if got := len(d.Filter("f", ds)); got != flood-MaxKeysPerFile {
		t.Errorf("second Filter(f, %d distinct) returned %d, want %d", flood, got, flood-MaxKeysPerFile)
	}
	if got := keyCount(d); got != MaxKeysPerFile {
		t.Errorf("keys remembered after second Filter = %d, want %d", got, MaxKeysPerFile)
	}
	if got := len(d.Sync("f", ds)); got != flood-MaxKeysPerFile {
		t.Errorf("Sync(f, %d distinct) returned %d, want %d", flood, got, flood-MaxKeysPerFile)
	}
	if got := keyCount(d); got != MaxKeysPerFile {
		t.Errorf("keys remembered after Sync = %d, want %d", got, MaxKeysPerFile)
	}
}

func TestDeliveredManyFilesBounded(t *testing.T) {
	d := NewDelivered(0)
	for i := range 100_000 {
		d.Filter(fmt.Sprint(i), []messages.Diagnostic{diag(sevError, 0, 0, "x"), diag(sevWarn, 1, 0, "y")})
	}
	if got, want := keyCount(d), 2*MaxFiles; d.Len() != MaxFiles || got != want {
		t.Errorf("after 100000 files: Len(), keys = %d, %d, want %d, %d", d.Len(), got, MaxFiles, want)
	}
}

func TestDeliveredSteadyStateAllocs(t *testing.T) {
	ds := diags(sevError, 100, "x")
	d := NewDelivered(0)
	d.Filter("f", ds)
	// Re-filtering what was delivered allocates a fixed small amount,
	// whatever the number of diagnostics: nothing is stored.
	allocs := testing.AllocsPerRun(100, func() { d.Filter("f", ds) })
	if allocs > 2 {
		t.Errorf("Filter(f, delivered) allocs = %v, want <= 2", allocs)
	}
}

// TestUnseenAndRetainAnySize: Unseen and Retain answer as the plain
// definitions do, below and above the size where they stop comparing
// diagnostics pair by pair.
func TestUnseenAndRetainAnySize(t *testing.T) {
	var pool []messages.Diagnostic
	for i := range 3 * SmallSet {
		pool = append(pool, diag(sevError, uint32(i), 0, "x"))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(n int) []messages.Diagnostic {
		ds := make([]messages.Diagnostic, n)
		for i := range ds {
			ds[i] = pool[rng.IntN(len(pool))]
		}
		return ds
	}
	for range 500 {
		d := NewDelivered(0)
		marked, ds := pick(rng.IntN(2*SmallSet)), pick(rng.IntN(4*SmallSet))
		d.Mark("u", marked)
		want := distinctWhere(ds, func(x messages.Diagnostic) bool { return !Contains(marked, x) })
		if got := d.Unseen("u", ds); !cmp.Equal(got, want) {
			t.Fatalf("Unseen(%v) after Mark(%v) = %v, want %v", ds, marked, got, want)
		}
		d.Retain("u", ds)
		kept := distinctWhere(marked, func(x messages.Diagnostic) bool { return Contains(ds, x) })
		if got := d.Unseen("u", kept); len(got) != 0 {
			t.Fatalf("Retain(%v) after Mark(%v) forgot %v", ds, marked, got)
		}
		gone := distinctWhere(marked, func(x messages.Diagnostic) bool { return !Contains(kept, x) })
		if got := d.Unseen("u", marked); !cmp.Equal(got, gone) {
			t.Fatalf("Retain(%v) after Mark(%v): Unseen(marked) = %v, want %v", ds, marked, got, gone)
		}
	}
}

// distinctWhere is the first diagnostic of each key in ds that keep takes,
// in ds's order.
func distinctWhere(ds []messages.Diagnostic, keep func(messages.Diagnostic) bool) []messages.Diagnostic {
	var out []messages.Diagnostic
	for _, x := range ds {
		if keep(x) && !Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
