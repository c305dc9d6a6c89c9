// Package calls is the server actor's call queue: the requests it was
// asked for, waiting in arrival order for the server to run and for a free
// slot, then in flight until answered, retried (ContentModified), expired
// or cancelled. It bounds both: at most MaxInFlight in flight and at most
// MaxHeld held in all; beyond that Add refuses (the actor answers
// overloaded).
//
// A Queue is a single-threaded core: owned by one actor, no goroutines, no
// I/O, time passed in; not safe for concurrent use.
package calls

import (
	"errors"
	"time"
)

// Errors of Add.
var (
	// ErrFull: MaxHeld calls are held already.
	ErrFull = errors.New("calls: queue full")
	// ErrDuplicate: a call with that id is held already.
	ErrDuplicate = errors.New("calls: duplicate id")
)

// Call is one call. The queue owns ID, Deadline, Attempt and State; Data
// is the caller's (the request and where to answer).
type Call struct {
	ID       uint64
	Deadline time.Time
	Attempt  int // ContentModified retries done
	State    State
	Data     any
}

// State is where a call is.
type State int

// The states of a call.
const (
	Waiting  State = iota // not sent: waiting for the server or a slot
	InFlight              // sent, not answered
)

// Queue holds the calls of one server.
type Queue struct {
	maxInFlight, maxHeld int
	calls                map[uint64]*Call
	waiting              []uint64 // ids in the order they go out; may hold ids already gone
	inFlight             int
}

// New returns a queue with at most maxInFlight calls in flight and
// maxHeld in all.
func New(maxInFlight, maxHeld int) *Queue {
	return &Queue{maxInFlight: maxInFlight, maxHeld: max(maxHeld, maxInFlight), calls: make(map[uint64]*Call)}
}

// Add holds a new call, waiting. It fails with ErrFull or ErrDuplicate.
func (q *Queue) Add(id uint64, deadline time.Time, data any) (*Call, error) {
	if len(q.calls) >= q.maxHeld {
		return nil, ErrFull
	}
	if _, dup := q.calls[id]; dup {
		return nil, ErrDuplicate
	}
	c := &Call{ID: id, Deadline: deadline, Data: data}
	q.calls[id] = c
	q.waiting = append(q.waiting, id)
	return c, nil
}

// Next returns the oldest waiting call and marks it in flight when a slot
// is free; nil when none is waiting or every slot is taken. A call whose
// deadline passed by now is still returned: the caller answers it as
// expired (Done).
func (q *Queue) Next() *Call {
	for q.inFlight < q.maxInFlight && len(q.waiting) > 0 {
		id := q.waiting[0]
		q.waiting = q.waiting[1:]
		if c, ok := q.calls[id]; ok && c.State == Waiting {
			c.State = InFlight
			q.inFlight++
			return c
		}
	}
	if len(q.waiting) == 0 {
		q.waiting = nil // let the backing array go
	}
	return nil
}

// Get returns the call with that id, nil when none is held.
func (q *Queue) Get(id uint64) *Call { return q.calls[id] }

// Done forgets a call (answered, expired, cancelled) and frees its slot.
func (q *Queue) Done(id uint64) *Call {
	c, ok := q.calls[id]
	if !ok {
		return nil
	}
	delete(q.calls, id)
	if c.State == InFlight {
		q.inFlight--
	}
	if len(q.waiting) > 2*len(q.calls)+16 {
		q.compact()
	}
	return c
}

// compact drops the ids of calls that are gone from the waiting line, so
// it never holds more than a few times the calls held.
func (q *Queue) compact() {
	live := q.waiting[:0]
	for _, id := range q.waiting {
		if c, ok := q.calls[id]; ok && c.State == Waiting {
			live = append(live, id)
		}
	}
	clear(q.waiting[len(live):])
	q.waiting = live
}

// Retry takes an in-flight call back to waiting, first in line once its
// backoff ends (Requeue), and counts the attempt.
func (q *Queue) Retry(id uint64) *Call {
	c, ok := q.calls[id]
	if !ok || c.State != InFlight {
		return nil
	}
	c.State = Waiting
	c.Attempt++
	q.inFlight--
	return c
}

// Requeue puts a waiting call first in line (after a retry's backoff).
func (q *Queue) Requeue(id uint64) {
	if c, ok := q.calls[id]; ok && c.State == Waiting {
		q.waiting = append([]uint64{id}, q.waiting...)
	}
}

// Expired returns the waiting calls whose deadline is not after now.
func (q *Queue) Expired(now time.Time) []*Call {
	var out []*Call
	for _, c := range q.calls {
		if c.State == Waiting && !c.Deadline.After(now) {
			out = append(out, c)
		}
	}
	return out
}

// Drain forgets every call and returns them (to answer them all).
func (q *Queue) Drain() []*Call {
	out := make([]*Call, 0, len(q.calls))
	for _, c := range q.calls {
		out = append(out, c)
	}
	clear(q.calls)
	q.waiting, q.inFlight = nil, 0
	return out
}

// Len is the number of calls held; InFlight of those sent.
func (q *Queue) Len() int      { return len(q.calls) }
func (q *Queue) InFlight() int { return q.inFlight }

// Park takes an in-flight call back to waiting, out of line, without
// counting an attempt: it goes again when Requeue puts it back.
func (q *Queue) Park(id uint64) {
	if c, ok := q.calls[id]; ok && c.State == InFlight {
		c.State = Waiting
		q.inFlight--
	}
}
