package router

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Reads that met a write. Another process writing a file the router reads
// (os.WriteFile truncates it, then writes) can have it read half written,
// or empty. The watcher holds such a file back from its batches until its
// writer closes it, but a read the router began for an earlier change, or
// for a call, can come after the truncation and before the watcher has
// seen it: gopls was then sent an emptied Go file and the call answered
// fresh about it. So a read is taken only when nothing can have changed
// the file since it began. No batch since the read began may have named
// the file (it is read again otherwise), and then:
//
//   - on Linux the file is read under a read lease (paths.ReadTextLeased),
//     which the kernel grants only while no process has it open for
//     writing: read so, it was read whole, and is taken. This is the one
//     proof that holds in the moment between a writer's truncation and
//     its inotify event, which comes after the truncation: a read there
//     found the file empty with the watcher's queue still empty. A file a
//     writer has open is read again after a pause, a few times, then
//     decided as below;
//   - the watcher's probe says every change made on disk before now is in
//     a batch the router handled (no message, no wait);
//   - otherwise the router asks the watcher for a barrier of its own, a
//     check, shared by every read waiting for one, and decides when the
//     batch naming it comes: a read of a file the batch holds back
//     (FilesChanged.Held: its writer has not closed it) is done again once
//     a batch names the file, a read of a file a batch named since the
//     read began is done again at once, and any other read is taken.
//
// A read done again maxReads times is taken as it is: a file rewritten
// without pause must not hold the calls behind it forever. Without a
// watcher every read is taken (the stamps are all there is to compare).

// maxReads bounds the reads of one file for one caller, busyReads those
// that found a writer with the file open and pause before the next, the
// first pause busyPause, each next one twice as long.
const (
	maxReads  = 8
	busyReads = 4
	busyPause = 2 * time.Millisecond
)

// checkBit marks the ids of the router's check barriers, apart from the
// barriers calls wait for.
const checkBit = uint64(1) << 63

// pendingRead is a read of a file from disk not yet taken.
type pendingRead struct {
	abs, given string
	then       func(*diskRead)
	read       *diskRead
	named      uint64 // the file's naming count when the read began
	reads      int
	busy       int    // reads that found a writer
	waiting    uint64 // the wait for a batch naming the file (heldTimeout's id), 0: none
	timer      uint64 // that wait's timeout
}

// settling is the router's state of the reads not yet taken.
type settling struct {
	// named counts the batches that named a file while reads of it were
	// in flight (entries live while inflight does).
	named    map[string]uint64
	inflight map[string]int
	check    uint64         // the check barrier in flight, 0: none
	timer    uint64         // its timeout
	checking []*pendingRead // reads waiting for check's batch
	next     []*pendingRead // reads that came since check was asked
	checks   uint64         // check barriers asked
	// held are the reads of files a check found being written, waiting
	// for a batch naming the file.
	held  map[string][]*pendingRead
	waits uint64
	// Counts, for status and tests.
	retaken, rechecked uint64
}

// heldTimeout bounds the wait for a batch naming a file being written
// (the watcher names it within its write hold; it may have stopped).
type heldTimeout struct {
	p  *pendingRead
	id uint64
}

// busyRetry is the end of a pause before reading a file a writer had
// open again.
type busyRetry struct{ p *pendingRead }

// checkTimeout bounds a check barrier, as maxBarrierWait bounds a call's.
type checkTimeout struct{ id uint64 }

// readDisk reads abs and calls then on the actor with what it read, once
// the read is known not to have met a write (see above).
func (r *routerActor) readDisk(ctx actor.Context, abs, given string, then func(*diskRead)) {
	r.beginRead(ctx, &pendingRead{abs: abs, given: given, then: then})
}

// beginRead starts one read of p's file.
func (r *routerActor) beginRead(ctx actor.Context, p *pendingRead) {
	s := &r.settle
	if s.inflight == nil {
		s.inflight, s.named = make(map[string]int), make(map[string]uint64)
	}
	if p.reads == 0 {
		s.inflight[p.abs]++
	}
	p.reads++
	p.named = s.named[p.abs]
	r.readFile(ctx, p.abs, p.given, func(read *diskRead) {
		p.read = read
		r.readDone(ctx, p)
	})
}

// readDone takes a read, does it again, or has it checked.
func (r *routerActor) readDone(ctx actor.Context, p *pendingRead) {
	s := &r.settle
	switch {
	case r.watcher == nil || p.reads >= maxReads:
		r.takeRead(p)
	case s.named[p.abs] != p.named:
		r.readAgain(ctx, p)
	case p.read.lease == paths.LeaseHeld:
		r.takeRead(p)
	case p.read.lease == paths.LeaseBusy && p.busy < busyReads:
		r.timers.After(busyPause<<p.busy, &busyRetry{p: p})
		p.busy++
	case r.b.probe.Quiet(r.b.seen):
		r.takeRead(p)
	case s.check != 0:
		s.next = append(s.next, p)
	default:
		s.checking = append(s.checking, p)
		r.startCheck(ctx)
	}
}

// readAgain reads p's file again.
func (r *routerActor) readAgain(ctx actor.Context, p *pendingRead) {
	r.settle.retaken++
	r.beginRead(ctx, p)
}

// takeRead hands a read to its caller.
func (r *routerActor) takeRead(p *pendingRead) {
	s := &r.settle
	if s.inflight[p.abs]--; s.inflight[p.abs] <= 0 {
		delete(s.inflight, p.abs)
		delete(s.named, p.abs)
	}
	p.then(p.read)
}

// startCheck asks the watcher for a check barrier for the reads in
// checking.
func (r *routerActor) startCheck(ctx actor.Context) {
	s := &r.settle
	s.checks++
	s.rechecked += uint64(len(s.checking))
	s.check = checkBit | s.checks
	ctx.Send(r.watcher, &messages.WatchBarrier{ID: s.check})
	s.timer = r.timers.After(maxBarrierWait, &checkTimeout{id: s.check})
}

// noteNamed counts the files a batch names that reads are in flight for,
// and reads again the files being written that the batch names now.
func (r *routerActor) noteNamed(ctx actor.Context, m *messages.FilesChanged) {
	s := &r.settle
	if len(s.inflight) == 0 {
		return
	}
	for _, c := range m.Changes {
		if s.inflight[c.Path] == 0 {
			continue
		}
		s.named[c.Path]++
		waiting := s.held[c.Path]
		delete(s.held, c.Path)
		for _, p := range waiting {
			p.waiting = 0
			r.timers.Cancel(p.timer)
			r.readAgain(ctx, p)
		}
	}
}

// checkReached decides the reads a check barrier's batch answers; held
// is what the batch held back.
func (r *routerActor) checkReached(ctx actor.Context, ids []uint64, held []string) {
	s := &r.settle
	if s.check == 0 {
		return
	}
	reached := false
	for _, id := range ids {
		reached = reached || id == s.check
	}
	if !reached {
		return
	}
	r.decideChecked(ctx, held)
}

// decideChecked ends the check in flight: each read it waited for is taken,
// done again, or waits for its file's writer (held); then the next check
// starts if reads wait for one.
func (r *routerActor) decideChecked(ctx actor.Context, held []string) {
	s := &r.settle
	checked := s.checking
	r.timers.Cancel(s.timer)
	s.check, s.checking = 0, nil
	for _, p := range checked {
		switch {
		case s.named[p.abs] != p.named:
			r.readAgain(ctx, p)
		case slices.Contains(held, p.abs):
			if s.held == nil {
				s.held = make(map[string][]*pendingRead)
			}
			s.held[p.abs] = append(s.held[p.abs], p)
			s.waits++
			p.waiting = s.waits
			p.timer = r.timers.After(maxBarrierWait, &heldTimeout{p: p, id: p.waiting})
		default:
			r.takeRead(p)
		}
	}
	if len(s.next) > 0 && s.check == 0 {
		s.checking, s.next = s.next, nil
		r.startCheck(ctx)
	}
}

// onCheckTimeout: the watcher did not answer a check; its reads are
// decided as if nothing were held (their files' stamps are all there is).
func (r *routerActor) onCheckTimeout(ctx actor.Context, m *checkTimeout) {
	if m.id != r.settle.check {
		return
	}
	r.cfg.Logger.Warn("file watcher check timed out; taking the files as read", "after", maxBarrierWait)
	r.decideChecked(ctx, nil)
}

// onHeldTimeout: no batch named a file being written in time; it is read
// again.
func (r *routerActor) onHeldTimeout(ctx actor.Context, m *heldTimeout) {
	p := m.p
	if p.waiting != m.id {
		return
	}
	s := &r.settle
	s.held[p.abs] = slices.DeleteFunc(s.held[p.abs], func(q *pendingRead) bool { return q == p })
	if len(s.held[p.abs]) == 0 {
		delete(s.held, p.abs)
	}
	p.waiting = 0
	r.readAgain(ctx, p)
}
