package fakelsp

import (
	"container/heap"
	"sync"
	"time"
)

// scheduler runs timed work on one goroutine, in order of due time, then
// of scheduling. after is safe for concurrent use; run is called once, on
// the goroutine that owns the work, and close stops and joins it. Work
// still due when close is called is dropped.
type scheduler struct {
	mu    sync.Mutex
	queue timedQueue // guarded by mu
	seq   uint64     // guarded by mu
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

func newScheduler() *scheduler {
	return &scheduler{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// after schedules f to run in d. It does not block.
func (s *scheduler) after(d time.Duration, f func()) {
	s.mu.Lock()
	s.seq++
	heap.Push(&s.queue, timedItem{due: time.Now().Add(d), seq: s.seq, f: f})
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run runs due work until close.
func (s *scheduler) run() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		f, wait := s.next()
		if f != nil {
			f()
			continue
		}
		timer.Reset(wait)
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}

// next pops due work, or says how long to wait for the earliest.
func (s *scheduler) next() (func(), time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return nil, time.Hour
	}
	if wait := time.Until(s.queue[0].due); wait > 0 {
		return nil, wait
	}
	return heap.Pop(&s.queue).(timedItem).f, 0
}

// close stops run and waits for it to return. Call it once.
func (s *scheduler) close() {
	close(s.stop)
	<-s.done
}

// timedItem is one piece of scheduled work.
type timedItem struct {
	due time.Time
	seq uint64
	f   func()
}

// timedQueue is a min-heap of timedItem by (due, seq).
type timedQueue []timedItem

func (q timedQueue) Len() int { return len(q) }
func (q timedQueue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].seq < q[j].seq
}
func (q timedQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timedQueue) Push(x any)   { *q = append(*q, x.(timedItem)) }
func (q *timedQueue) Pop() any {
	old := *q
	item := old[len(old)-1]
	*q = old[:len(old)-1]
	return item
}
