package watcher

import "sync/atomic"

// Probe lets the watcher's target skip a barrier: Quiet tells, without a
// message to the watcher, that every change made on disk before the call
// is in a FilesChanged the target has handled. Create one with NewProbe,
// give it to the watcher (Config.Probe) and keep it; it outlives the
// watcher's restarts. Safe for concurrent use.
//
// Why it holds: the source's reader hands a read's events on under the
// lock under which queued looks at the kernel's queue, so a queue seen
// empty means every event queued before is in a batch numbered at most
// sent. The actor publishes, after each message, one snapshot of how many
// batches it handled, whether anything is pending (changes in a debounce
// window, a walk, barriers, missed events) and the number of the last
// FilesChanged it sent. Read after the queue, a snapshot that handled
// every batch sent with nothing pending means every earlier change went
// out in a FilesChanged numbered at most flushed.
type Probe struct {
	flushes atomic.Uint64 // FilesChanged sent, numbered across restarts
	state   atomic.Pointer[probeState]
}

// probeState is one snapshot of a watcher instance.
type probeState struct {
	src     source
	handled uint64 // the last batch of src the actor handled
	idle    bool   // nothing pending, nothing missed
	flushed uint64 // the number of the last FilesChanged sent (by any instance)
}

// NewProbe returns a probe for one watcher.
func NewProbe() *Probe { return &Probe{} }

// Quiet reports whether every change on disk before the call went out in
// a FilesChanged numbered at most seen (the last one the caller handled).
// False when it cannot tell (fsnotify's source, a walk, a debounce window
// open, events missed): the caller then asks the watcher for a barrier.
func (p *Probe) Quiet(seen uint64) bool {
	if p == nil {
		return false
	}
	before := p.state.Load()
	if before == nil || before.src == nil || !before.idle || before.flushed > seen {
		return false
	}
	sent, waiting := before.src.queued()
	if waiting {
		return false
	}
	s := p.state.Load() // read after the queue
	return s.src == before.src && s.handled >= sent && s.idle && s.flushed <= seen
}

// publish stores a snapshot (p may be nil).
func (p *Probe) publish(s *probeState) {
	if p != nil {
		p.state.Store(s)
	}
}

// nextFlush numbers a FilesChanged (p may be nil: numbered 0).
func (p *Probe) nextFlush() uint64 {
	if p == nil {
		return 0
	}
	return p.flushes.Add(1)
}

// publish gives the probe this instance's state, after each message.
func (a *watcherActor) publish() {
	p := a.cfg.Probe
	if p == nil {
		return
	}
	idle := a.w != nil && !a.partial() && !a.walking && !a.flushDue &&
		len(a.queue)+len(a.prunes)+len(a.pending)+len(a.barriers)+len(a.marks.busy) == 0
	p.publish(&probeState{src: a.w, handled: a.handled, idle: idle, flushed: p.flushes.Load()})
}
