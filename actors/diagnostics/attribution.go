package diagnostics

import (
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/diagnostics/edits"
	"github.com/agentlsp/agentlsp/actors/diagnostics/store"
	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/reach"
)

// Attribution. An error that appeared in another file while an edit
// waited is the edit's only if the edit can reach that file (by the
// language's import rules: package reach) and no other change that could
// also reach it overlapped in time: another session's edit, or a file
// written on disk. Otherwise it is reported as changed meanwhile, with the
// changes that overlapped. What each change can reach is computed from the
// import graph in reaper goroutines (at most maxReachJobs at once), while
// the edit waits; a change whose reach is not known yet could reach
// anything.

const (
	maxReachJobs    = 4
	maxReachQueue   = 512
	maxDiskChanges  = 256
	overlapLookback = 500 * time.Millisecond // changes just before an edit may still be in flight
	// maxDiagnoseLag bounds how long before a session's previous answer a
	// change may have been that made another file's errors since.
	maxDiagnoseLag = 10 * time.Second
)

// diskChange is a change on disk the router forwarded.
type diskChange struct {
	id    uint64
	path  string
	at    time.Time
	seq   uint64 // the store's write count then
	reach *reach.Reach
	// dir: the path is a directory made (or moved in): no cause of
	// errors itself, beside the files in it, each a change of its own.
	dir bool
}

// reachJob asks for the reach of a change: an edit's or a disk change's.
type reachJob struct {
	edit, disk uint64
	path       string
}

// reachKnown is a reach computed.
type reachKnown struct {
	job reachJob
	r   *reach.Reach
}

// askReach queues the computation of a change's reach.
func (a *diagnosticsActor) askReach(ctx actor.Context, job reachJob) {
	if a.reach == nil || a.cfg.Reaper == nil {
		return
	}
	if len(a.reachQueue) >= maxReachQueue {
		return // unknown: the change could reach anything
	}
	a.reachQueue = append(a.reachQueue, job)
	a.runReachJobs(ctx)
}

func (a *diagnosticsActor) runReachJobs(ctx actor.Context) {
	for a.reachJobs < maxReachJobs && len(a.reachQueue) > 0 {
		job := a.reachQueue[0]
		a.reachQueue = a.reachQueue[1:]
		a.reachJobs++
		ix, send := a.reach, lifecycle.Sender(ctx, ctx.Self())
		// Lives for one walk of a project's sources; joined by the Reaper.
		a.cfg.Reaper.Go(func() { send(&reachKnown{job: job, r: ix.From(job.path)}) })
	}
}

func (a *diagnosticsActor) onReachKnown(ctx actor.Context, m *reachKnown) {
	a.reachJobs--
	if m.job.edit != 0 {
		if e := a.edits.Find(m.job.edit); e != nil {
			e.Reach = m.r
		}
	}
	for _, d := range a.disk {
		if d.id == m.job.disk && m.job.disk != 0 {
			d.reach = m.r
		}
	}
	a.runReachJobs(ctx)
}

// onDiskChanged records the changes on disk the router forwarded.
func (a *diagnosticsActor) onDiskChanged(ctx actor.Context, m *messages.FilesChanged) {
	now := a.now()
	for _, c := range m.Changes {
		a.gone.note(c)
		if len(a.disk) == maxDiskChanges {
			a.disk = append(a.disk[:0], a.disk[1:]...)
		}
		a.nextDisk++
		d := &diskChange{id: a.nextDisk, path: c.Path, at: now, seq: a.store.Seq(), dir: c.Dir && c.Type == messages.FileCreated}
		a.disk = append(a.disk, d)
		a.askReach(ctx, reachJob{disk: d.id, path: c.Path})
	}
}

// maxReasons bounds the changes an answer names for one file changed
// meanwhile; the rest are counted.
const maxReasons = 4

// attribute says whether an error that appeared in uri while e waited is
// e's: none when it is, else the changes that could have made it (or why
// not e), the first maxReasons named and the rest counted. over is
// a.edits.Overlapping(e), taken once for all the files of an answer.
func (a *diagnosticsActor) attribute(e *edits.Edit, uri string, over []*edits.Edit) []string {
	why, _ := a.causes(e, uri, over, true)
	return why
}

// editedBy names the changes of others that overlapped e and can reach
// its own file: another session's edit of the file (the report then
// describes whichever text reached the servers last) or of a file it
// imports, a change on disk. Before, an agent whose edit another agent's
// edit of the same file overtook was answered fresh with the other's
// errors, and nothing said they were not its own.
func (a *diagnosticsActor) editedBy(e *edits.Edit) []string {
	over := a.edits.Overlapping(e)
	if !a.othersMay(e, e.URI, over) {
		return nil
	}
	return a.attribute(e, e.URI, over)
}

// othersMay reports whether attribute would name anything, without naming
// it: with a thousand agents editing, naming and counting every
// overlapping edit for every file was a third of the runtime's CPU.
func (a *diagnosticsActor) othersMay(e *edits.Edit, uri string, over []*edits.Edit) bool {
	_, found := a.causes(e, uri, over, false)
	return found
}

// causes finds what attribute names; without name it stops at the first
// cause and names none.
func (a *diagnosticsActor) causes(e *edits.Edit, uri string, over []*edits.Edit, name bool) (why []string, found bool) {
	sc := changeScope{since: e.Started.Add(-overlapLookback),
		// A diagnostics call changes nothing itself; the same change, tried
		// again, is the edit's own.
		ownEdit: func(o *edits.Edit) bool { return o.Current || o.Session == e.Session && o.URI == e.URI }}
	return a.causesIn(reach.TargetOf(paths.FromURI(uri)), over, sc, name, []*edits.Edit{e})
}

// causesIn finds the causes of to's errors: that the files of from
// (the edits of the files named) cannot reach it, when reach says so of
// every one, then the changes of sc. Without name it stops at the first
// and names none.
func (a *diagnosticsActor) causesIn(to reach.Target, over []*edits.Edit, sc changeScope, name bool, from []*edits.Edit) (why []string, found bool) {
	c := newCauseList(name)
	unreachable := unreachableFrom(from, to)
	if unreachable {
		if !name {
			return nil, true
		}
		if c.add() {
			c.why = append(c.why, "not reachable from "+baseNames(from))
		}
	}
	if a.addChanges(&c, to, over, sc) && !name {
		return nil, true
	}
	why = c.names()
	if len(why) == 1 && unreachable {
		why = append(why, "cause unknown")
	}
	return why, c.found
}

// sessionScope is what the other files of a diagnostics call's answer are
// attributed to: the changes from the session's previous answer on (less
// the lookback, for effects still in flight then; for a first answer, the
// call's own window), other than the caller's: its own edits, changes on
// disk to the files it names now, and changes to files that one of its
// answers after them was for. Each file's causes are what can reach it
// (sessionCauses).
func (a *diagnosticsActor) sessionScope(e *edits.Edit, sess *session) changeScope {
	named := namedSet(e)
	since := e.Started
	if prev := sess.answeredAt; prev.Before(e.Started) && !prev.IsZero() { // not one of this call's own
		since = prev
	}
	return changeScope{since: since.Add(-overlapLookback),
		ownEdit: func(o *edits.Edit) bool { return o.Current || o.Session == e.Session },
		ownDisk: func(d *diskChange) bool {
			u := paths.URI(d.path)
			return named[u] || sess.answeredAfter(u, d.at)
		}}
}

// sessionCauses names the changes of sc (sessionScope) that can reach
// uri, after "not reachable from" the files named when reach rules that
// out from each of them (from: namedEdits): none when only the caller's
// could have made its new errors (or nothing the runtime saw did). What
// its servers said of uri before (its entries at write told, the
// baseline of its new errors) is what they made of the changes until
// then: the changes since the oldest of those diagnoses (less the
// lookback) count too, however long before the session's previous answer
// (a busy server diagnoses seconds after a change), up to maxDiagnoseLag
// before it. over is the edits since then (sessionOver), and from the
// named files' edits, both taken once for all the files of an answer.
func (a *diagnosticsActor) sessionCauses(e *edits.Edit, uri string, sc changeScope, told uint64, over, from []*edits.Edit) []string {
	horizon := sc.since.Add(-maxDiagnoseLag)
	for _, sv := range a.store.Servers(uri) {
		if t := diagnosedAt(a.store.At(store.Key{Server: sv, URI: uri}, told)); !t.IsZero() && t.Add(-overlapLookback).Before(sc.since) {
			sc.since = t.Add(-overlapLookback)
		}
	}
	if sc.since.Before(horizon) {
		sc.since = horizon
	}
	why, _ := a.causesIn(reach.TargetOf(paths.FromURI(uri)), over, sc, true, from)
	return why
}

// sessionOver is the edits any file's causes may name (sessionCauses):
// those held, and those released since sc's window less maxDiagnoseLag.
func (a *diagnosticsActor) sessionOver(e *edits.Edit, sc changeScope) []*edits.Edit {
	return a.edits.OverlappingSince(e, sc.since.Add(-maxDiagnoseLag))
}

// diagnosedAt is when the latest diagnosis of an entry arrived (zero when
// none did).
func diagnosedAt(en store.Entry) time.Time {
	var t time.Time
	for _, p := range []*store.Published{en.Push, en.Pull} {
		if p != nil && p.At.After(t) {
			t = p.At
		}
	}
	return t
}

// changeScope says which changes addChanges considers: the edits given
// that were held or released since, and the changes on disk from since
// on, less the caller's own.
type changeScope struct {
	since   time.Time
	ownEdit func(*edits.Edit) bool
	ownDisk func(*diskChange) bool // nil: none is
}

// addChanges adds to c the changes of sc that can reach to, and reports
// whether there was one. A list that does not name stops at the first.
func (a *diagnosticsActor) addChanges(c *causeList, to reach.Target, over []*edits.Edit, sc changeScope) bool {
	for _, o := range over {
		if sc.ownEdit(o) || !o.Ended.IsZero() && o.Ended.Before(sc.since) || o.Reach != nil && o.Reach.ReachesTarget(to) == reach.No {
			continue
		}
		if !c.name {
			c.found = true
			return true
		}
		if c.add() {
			c.why = append(c.why, "session "+o.Session+"'s edit of "+filepath.Base(paths.FromURI(o.URI)))
		}
	}
	// a.disk is in the order the changes came: those since sc.since are
	// its tail.
	first := sort.Search(len(a.disk), func(i int) bool { return !a.disk[i].at.Before(sc.since) })
	for i, d := range a.disk[first:] {
		if len(c.why) >= maxReasons && !to.Known() { // every change may reach it: count the rest at once
			c.more += len(a.disk) - first - i
			c.found = true
			break
		}
		if d.dir || sc.ownDisk != nil && sc.ownDisk(d) || d.reach != nil && d.reach.ReachesTarget(to) == reach.No {
			continue
		}
		if !c.name {
			c.found = true
			return true
		}
		if len(c.why) >= maxReasons { // only counted: not formatted
			c.add()
			continue
		}
		// Relative within the workspace; a file written again is named once.
		why := "a change on disk to " + paths.Rel(a.cfg.Workspace, d.path)
		if !slices.Contains(c.why, why) {
			c.add()
			c.why = append(c.why, why)
		}
	}
	return c.found
}

// causeList collects the causes causes names: the first maxReasons named,
// the rest counted. A cause is counted before it is formatted, and only
// one to be named is (naming every overlapping change, to count most of
// them, was most of an answer's work with 64 agents editing).
type causeList struct {
	name  bool // names causes; else only finds one
	found bool
	why   []string
	more  int
}

func newCauseList(name bool) causeList {
	c := causeList{name: name}
	if name {
		c.why = make([]string, 0, maxReasons+2) // the names, "and N more", "cause unknown"
	}
	return c
}

// names are the causes named, the rest counted; nil when none.
func (c *causeList) names() []string {
	why := c.why
	if c.more > 0 {
		why = append(why, "and "+strconv.Itoa(c.more)+" more "+plural(c.more, "change"))
	}
	if len(why) == 0 {
		return nil
	}
	return why
}

// add counts a cause and reports whether the caller names it.
func (c *causeList) add() bool {
	c.found = true
	if len(c.why) < maxReasons {
		return true
	}
	c.more++
	return false
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
