package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/daemon/rundir"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// Bounds of what a link holds.
const (
	maxCalls  = 4096 // calls waiting for a reply; more are refused (DeadLetterResponse)
	maxOutbox = 4096 // messages without reply held while detached; the oldest are dropped
	maxEdits  = 1024 // edits remembered for a replay; the oldest are forgotten
	// attachTimeout bounds the front's answer to Attach.
	attachTimeout = 5 * time.Second
	// retryMin and retryMax bound the pause between connection attempts.
	retryMin = 50 * time.Millisecond
	retryMax = 2 * time.Second
)

// linkConfig is what a link needs; it does not change.
type linkConfig struct {
	workspace  string
	version    string
	configFile string
	// connect finds the daemon's entry, starting a daemon if none runs.
	connect func(ctx context.Context) (rundir.Entry, error)
	auth    *auth
	ctx     context.Context // ends connection attempts; cancelled when the link stops
	cancel  context.CancelFunc
	wg      *sync.WaitGroup // joins the connect goroutine
	log     *slog.Logger
	ready   chan error    // the first attachment's outcome (buffered, one value)
	first   rundir.Entry  // the first daemon's entry, set before ready
	stopped chan struct{} // closed when the link has stopped
	// lost says why the link is detached (ErrDaemonLost), nil while it
	// is attached: written by the link, read by callers (Client.Lost).
	lost atomic.Pointer[error]
}

// link is the client's stand-in for the daemon's router and diagnostics
// actors (see the package doc). Its state is touched only by Receive.
type link struct {
	cfg *linkConfig
	sys *actor.ActorSystem

	att        *attachment // nil while detached
	gen        int         // counts attachments; a call records the one it went out on
	connecting bool
	attached   bool // attached at least once
	tries      int
	lostPID    int // the daemon the link lost, while detached
	retry      *time.Timer
	sub        *eventstream.Subscription

	seq      uint64
	calls    map[uint64]*call
	outbox   []outItem
	docs     map[docKey]*docState
	edits    map[uint64]*edit
	subs     map[string]*relay
	sessions map[string]bool
}

// attachment is the daemon the link is attached to.
type attachment struct {
	entry               rundir.Entry
	front, router, diag *actor.PID
	ns                  *namespace
}

// call is a message that waits for a reply.
type call struct {
	seq    uint64
	toDiag bool
	msg    any // as the client sent it
	caller *actor.PID
	proc   *replyProc
	pid    *actor.PID // proc's
	gen    int        // the attachment it went out on; 0: not sent
	// then, for the link's own calls (a replayed edit's sync), takes the
	// reply instead of a caller.
	then func(actor.Context, any)
}

// outItem is a message without reply held while detached.
type outItem struct {
	msg    any
	toDiag bool
}

// docKey names a document a session holds.
type docKey struct{ session, path string }

// docState is the last thing a session did to a document: opened it
// (SyncCurrent) or gave it an edit's text (SyncChange, with the disk's
// stamp then, so that a replay uses the disk instead once it changed).
type docState struct {
	sync  *messages.SyncDocument
	stamp paths.Stamp
	seq   uint64 // order of first use, kept by a replay
}

// edit is an edit a session announced (EditStarted), kept for a replay
// until its AwaitEdit is answered.
type edit struct {
	started  *messages.EditStarted
	sync     *messages.SyncDocument // the change that followed it
	gen      int                    // the attachment EditStarted went out on
	awaiting bool
	seq      uint64 // order of arrival
}

// Internal messages of the link.
type (
	attachResult struct {
		att *attachment
		err error
	}
	retryConnect  struct{}
	internalReply struct {
		seq uint64
		msg any
	}
)

// newLink returns the link's props. It runs on the synchronized
// dispatcher: a message is handled on the goroutine that sends it (the
// caller's, or the gRPC reader's for a reply), which saves a goroutine
// hand-off per message; Receive never blocks, so senders are not held.
func newLink(cfg *linkConfig) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &link{cfg: cfg, calls: map[uint64]*call{}, docs: map[docKey]*docState{},
			edits: map[uint64]*edit{}, subs: map[string]*relay{}, sessions: map[string]bool{}}
	}, actor.WithDispatcher(actor.NewSynchronizedDispatcher(linkThroughput)), actor.WithMailbox(lifecycle.NilSafeMailbox()))
}

// linkThroughput is how many messages the link handles before yielding.
const linkThroughput = 300

// Receive handles one message; it never blocks.
func (l *link) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		l.sys = ctx.ActorSystem()
		l.sub = watchEndpoints(ctx)
		l.connect(ctx)
	case *attachResult:
		l.onAttach(ctx, m)
	case *retryConnect:
		l.connect(ctx)
	case *replied:
		l.forget(m.seq)
	case *internalReply:
		l.onInternalReply(ctx, m)
	case *undelivered:
		l.onUndelivered(ctx, m.seq)
	case *endpointGone:
		if l.att != nil && m.address == l.att.entry.Address {
			l.cfg.log.Warn("daemon: connection to the daemon lost; re-attaching", "daemon", l.att.entry.PID)
			l.detach(ctx)
		}
	case *actor.Stopping:
		ctx.ActorSystem().EventStream.Unsubscribe(l.sub)
		l.stop()
	case *actor.Stopped:
		close(l.cfg.stopped)
	case *viaDiag:
		l.route(ctx, m.msg, true)
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		l.route(ctx, m, false)
	}
}

// connect starts the connect goroutine unless one runs.
func (l *link) connect(ctx actor.Context) {
	if l.connecting || l.cfg.ctx.Err() != nil {
		return
	}
	l.connecting = true
	cfg, sys, self := l.cfg, ctx.ActorSystem(), ctx.Self()
	sessions := make([]string, 0, len(l.sessions))
	for s := range l.sessions {
		sessions = append(sessions, s)
	}
	cfg.wg.Add(1)
	// Lives for one attempt, bounded by cfg.ctx and attachTimeout; joined
	// by the Client when the link stops.
	go func() {
		defer cfg.wg.Done()
		att, err := attach(cfg, sys, self, sessions)
		sys.Root.Send(self, &attachResult{att: att, err: err})
	}()
}

// onAttach takes the connect goroutine's result.
func (l *link) onAttach(ctx actor.Context, m *attachResult) {
	l.connecting = false
	if m.err != nil {
		if !l.attached {
			l.cfg.ready <- m.err
			return
		}
		l.tries++
		d := min(retryMin<<min(l.tries, 6), retryMax)
		l.cfg.log.Warn("daemon: cannot attach; retrying", "in", d, "err", m.err)
		l.setLost(fmt.Errorf("%w: the daemon of %s (pid %d) went away, and attaching again failed %d times, the last: %w",
			ErrDaemonLost, l.cfg.workspace, l.lostPID, l.tries, m.err))
		root, self := ctx.ActorSystem().Root, ctx.Self()
		l.retry = time.AfterFunc(d, func() { root.Send(self, &retryConnect{}) })
		return
	}
	l.tries = 0
	l.gen++
	l.att = m.att
	l.cfg.lost.Store(nil)
	if !l.attached {
		l.attached = true
		l.cfg.first = m.att.entry
		l.cfg.ready <- nil
	} else {
		l.cfg.log.Info("daemon: re-attached", "daemon", m.att.entry.PID, "address", m.att.entry.Address)
	}
	l.resync(ctx)
}

// detach forgets the daemon: every call waits to be sent again.
func (l *link) detach(ctx actor.Context) {
	l.lostPID = l.att.entry.PID
	l.setLost(fmt.Errorf("%w: the daemon of %s (pid %d) went away; attaching again", ErrDaemonLost, l.cfg.workspace, l.lostPID))
	l.att = nil
	for seq, c := range l.calls {
		if c.then != nil {
			l.drop(seq)
			continue
		}
		c.gen = 0
	}
	l.connect(ctx)
}

// setLost records why the link is detached, for the calls that give up
// waiting meanwhile: without it, a call whose daemon cannot be started
// again timed out saying only that it timed out.
func (l *link) setLost(err error) { l.cfg.lost.Store(&err) }

// onUndelivered: a call did not reach the daemon (its endpoint failed).
func (l *link) onUndelivered(ctx actor.Context, seq uint64) {
	c, ok := l.calls[seq]
	if !ok || l.att == nil || c.gen != l.gen {
		return
	}
	l.cfg.log.Warn("daemon: a message did not reach the daemon; re-attaching")
	l.detach(ctx)
}

// stop releases what the link registered and ends connection attempts.
func (l *link) stop() {
	l.cfg.cancel()
	if l.retry != nil {
		l.retry.Stop()
	}
	for seq := range l.calls {
		l.drop(seq)
	}
	for s, r := range l.subs {
		l.sys.ProcessRegistry.Remove(r.pid)
		delete(l.subs, s)
	}
}

// sorted returns the calls in the order they arrived.
func (l *link) sorted() []*call {
	out := make([]*call, 0, len(l.calls))
	for _, c := range l.calls {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}
