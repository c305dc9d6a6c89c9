package calls_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/actors/server/calls"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ids returns the ids of the calls Next gives until it gives none.
func next(q *calls.Queue) []uint64 {
	var out []uint64
	for c := q.Next(); c != nil; c = q.Next() {
		out = append(out, c.ID)
	}
	return out
}

func TestQueueOrderAndSlots(t *testing.T) {
	q := calls.New(2, 5)
	for id := uint64(1); id <= 5; id++ {
		if _, err := q.Add(id, t0.Add(time.Minute), nil); err != nil {
			t.Fatalf("Add(%d) = %v", id, err)
		}
	}
	if _, err := q.Add(6, t0, nil); !errors.Is(err, calls.ErrFull) {
		t.Errorf("Add beyond maxHeld = %v, want ErrFull", err)
	}
	if _, err := q.Add(3, t0, nil); !errors.Is(err, calls.ErrFull) {
		t.Errorf("Add when full = %v, want ErrFull first", err)
	}
	steps := []struct {
		do   func()
		want []uint64
	}{
		{func() {}, []uint64{1, 2}},                        // two slots
		{func() { q.Done(1) }, []uint64{3}},                // a slot frees
		{func() { q.Retry(2); q.Done(3) }, []uint64{4, 5}}, // a retry waits for its Requeue
		{func() { q.Done(4); q.Requeue(2) }, []uint64{2}},  // requeued first in line
	}
	for i, s := range steps {
		s.do()
		got := next(q)
		if len(got) != len(s.want) {
			t.Fatalf("step %d: Next gave %v, want %v", i, got, s.want)
		}
		for j := range got {
			if got[j] != s.want[j] {
				t.Fatalf("step %d: Next gave %v, want %v", i, got, s.want)
			}
		}
	}
	if c := q.Get(2); c == nil || c.Attempt != 1 || c.State != calls.InFlight {
		t.Errorf("retried call = %+v, want attempt 1 in flight", c)
	}
	if q.InFlight() != 2 || q.Len() != 2 {
		t.Errorf("in flight %d, held %d; want 2 and 2", q.InFlight(), q.Len())
	}
}

func TestQueueDuplicateExpiryDrain(t *testing.T) {
	q := calls.New(1, 10)
	q.Add(1, t0.Add(time.Second), "a")
	if _, err := q.Add(1, t0, nil); !errors.Is(err, calls.ErrDuplicate) {
		t.Errorf("duplicate = %v", err)
	}
	q.Add(2, t0.Add(time.Second), "b")
	q.Add(3, t0.Add(time.Hour), "c")
	q.Next() // 1 in flight
	exp := q.Expired(t0.Add(2 * time.Second))
	if len(exp) != 1 || exp[0].ID != 2 {
		t.Errorf("Expired = %v, want call 2 (waiting, deadline passed; 1 is in flight)", exp)
	}
	all := q.Drain()
	if len(all) != 3 || q.Len() != 0 || q.InFlight() != 0 || q.Next() != nil {
		t.Errorf("Drain gave %d, left %d held, %d in flight", len(all), q.Len(), q.InFlight())
	}
}

// TestQueueWaitingLineStaysBounded: calls that expire while the server
// never runs do not pile up in the waiting line.
func TestQueueWaitingLineStaysBounded(t *testing.T) {
	q := calls.New(64, 256)
	for id := uint64(1); id <= 100_000; id++ {
		q.Add(id, t0, nil)
		q.Done(id) // expired before the server ran
	}
	q.Add(0, t0, nil)
	if got := next(q); len(got) != 1 || got[0] != 0 {
		t.Errorf("Next = %v, want only the live call", got)
	}
}
