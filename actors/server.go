package actors

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/supervisor"
)

// ServerConfig configures one server actor.
type ServerConfig struct {
	// Server is the definition to run; the actor keeps its own copy.
	Server *config.Server
	// Root is the project root (absolute); the process runs there.
	Root string
	// Observers receive StateChanged, PublishedDiagnostics and Progress.
	Observers []*actor.PID
	// Policy is the restart policy; MaxCrashes defaults to Server.Restarts().
	Policy supervisor.Policy
	// Reaper joins the actor's goroutines; required.
	Reaper *Reaper
	// RetryBackoff is the first delay of the ContentModified retries
	// (default 500ms, doubling, 3 retries).
	RetryBackoff time.Duration
	// Logger for the actor's own logs; nil discards.
	Logger *slog.Logger
	// Now and Rand are the clock and jitter source (tests); nil: real ones.
	Now  func() time.Time
	Rand func() float64
}

// NewServerProps returns the props of a server actor. The state that must
// survive a restart of the actor after a panic (open documents, versions,
// crash budget, incarnation count) lives in the producer's closure, so a
// restarted actor re-opens every document with its latest text.
func NewServerProps(cfg ServerConfig) *actor.Props {
	cfg.Server = cfg.Server.Clone()
	if cfg.Policy.MaxCrashes == 0 {
		cfg.Policy.MaxCrashes = cfg.Server.Restarts()
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	st := newDurable(cfg.Policy)
	return actor.PropsFromProducer(func() actor.Actor {
		return &serverActor{cfg: cfg, st: st}
	})
}

// durable is the server actor's state that survives actor restarts.
type durable struct {
	docs        map[string]*document
	budget      *supervisor.Budget
	incarnation int
	restarts    int
}

func newDurable(p supervisor.Policy) *durable {
	return &durable{docs: make(map[string]*document), budget: supervisor.NewBudget(p)}
}

// document is one document as the server actor tracks it.
type document struct {
	uri        string
	languageID string
	text       string
	version    int32
	open       bool // open on the server (or to be re-opened once it runs)
}

// serverActor owns one language-server process (one incarnation at a time)
// and its connection. Its state machine: stopped -> starting -> running ->
// stopping -> stopped, and error after a crash (restart pending) or when
// broken.
type serverActor struct {
	cfg  ServerConfig
	st   *durable
	self *actor.PID

	state    messages.ServerState
	inc      *incarnation
	pid      int
	caps     serverCaps
	regs     map[string]messages.Registration
	matchers map[string]*WatchMatcher // compiled didChangeWatchedFiles registrations
	pulls    map[string]*pullState    // pull diagnostics per document
	progress map[string]bool

	calls    map[uint64]*call // requests sent or waiting
	waiting  []uint64         // ids of calls not sent yet, in arrival order
	inflight int              // calls sent and not answered
	timers   *timers
	broken   bool
	lastErr  error
	// activity counts requests and document messages received; idleSeq
	// tells a pending idle check whether anything happened since.
	activity uint64
	idleSeq  uint64
	retryAt  time.Time // when a broken server may be tried again (zero: when its binary exists)
}

// Receive dispatches one message; it never blocks.
func (a *serverActor) Receive(ctx actor.Context) { a.handle(ctx, ctx.Message()) }

func (a *serverActor) handle(ctx actor.Context, msg any) {
	switch m := msg.(type) {
	case *actor.Started:
		a.onStarted(ctx)
	case *actor.Stopping:
		a.onStopping(ctx)
	case *actor.Restarting:
		a.onRestarting(ctx)
	case *incStarted:
		a.onIncStarted(ctx, m)
	case *incFailed:
		a.onIncFailed(ctx, m)
	case *incExited:
		a.onIncExited(ctx, m)
	case *incEvent:
		a.onEvent(ctx, m)
	case *restartNow:
		a.onRestartNow(ctx, m)
	case *timerFired:
		a.handle(ctx, a.timers.fired(m))
	case *idleCheck:
		a.onIdleCheck(ctx, m)
	case *messages.Request:
		a.activity++
		a.onRequest(ctx, m)
	case *messages.Cancel:
		a.onCancel(ctx, m)
	case *callDone:
		a.onCallDone(ctx, m)
	case *callRetry:
		a.onCallRetry(ctx, m)
	case *callExpired:
		a.onCallExpired(ctx, m)
	case *pullDone:
		a.onPullDone(ctx, m)
	case *messages.OpenDocument:
		a.activity++
		a.retryIfBroken(ctx)
		ctx.Respond(a.openDocument(ctx, m))
		a.scheduleIdle(ctx)
	case *messages.ChangeDocument:
		a.activity++
		a.retryIfBroken(ctx)
		ctx.Respond(a.changeDocument(ctx, m))
		a.scheduleIdle(ctx)
	case *messages.SaveDocument:
		a.activity++
		ctx.Respond(a.saveDocument(m))
		a.scheduleIdle(ctx)
	case *messages.CloseDocument:
		a.activity++
		ctx.Respond(a.closeDocument(m))
		a.scheduleIdle(ctx)
	case *messages.GetServerStatus:
		ctx.Respond(a.status())
	case *messages.FilesChanged:
		a.onFilesChanged(m)
	case *messages.StopServer:
		ctx.Stop(ctx.Self())
	}
}

func (a *serverActor) onStarted(ctx actor.Context) {
	a.self = ctx.Self()
	a.calls = make(map[uint64]*call)
	a.timers = newTimers(ctx)
	a.regs = make(map[string]messages.Registration)
	a.matchers = make(map[string]*WatchMatcher)
	a.pulls = make(map[string]*pullState)
	a.progress = make(map[string]bool)
	a.start(ctx)
	a.scheduleIdle(ctx)
}

// onStopping shuts the process down gracefully (in a reaper goroutine) and
// answers everything pending with ErrShutdown.
func (a *serverActor) onStopping(ctx actor.Context) {
	a.stopTimers()
	if a.inc != nil {
		a.inc.shutdown(a.cfg.Reaper, a.cfg.Server.Shutdown())
		a.inc = nil
	}
	a.failAll(ctx, a.serverError(messages.ErrShutdown, nil, nil))
	a.setState(ctx, messages.StateStopped, nil)
}

// onRestarting: the actor panicked and is restarted by its supervisor. The
// process is killed now; the new instance starts a fresh one and re-opens
// the documents kept in the durable state.
func (a *serverActor) onRestarting(ctx actor.Context) {
	a.stopTimers()
	if a.inc != nil {
		a.inc.kill()
		a.inc = nil
	}
	a.failAll(ctx, a.serverError(messages.ErrServerCrashed, errActorRestarted, nil))
}

// after sends msg to the actor after d, on a timer the actor stops when it
// stops.
func (a *serverActor) after(_ actor.Context, d time.Duration, msg any) {
	a.timers.after(d, msg)
}

func (a *serverActor) stopTimers() {
	if a.timers != nil {
		a.timers.stopAll()
	}
}

// send returns a function that delivers messages to this actor from any
// goroutine.
func (a *serverActor) send(ctx actor.Context) func(any) {
	root, self := ctx.ActorSystem().Root, a.self
	return func(m any) { root.Send(self, m) }
}

// setState records a transition and tells the observers.
func (a *serverActor) setState(ctx actor.Context, s messages.ServerState, err error) {
	a.state = s
	n := 0
	if a.st != nil {
		n = a.st.incarnation
	}
	msg := &messages.StateChanged{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, State: s,
		Incarnation: n, PID: a.pid, Broken: a.broken, Err: err,
	}
	for _, o := range a.cfg.Observers {
		ctx.Send(o, msg)
	}
}

func (a *serverActor) status() *messages.ServerStatus {
	s := &messages.ServerStatus{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, State: a.state,
		Incarnation: a.st.incarnation, Restarts: a.st.restarts, Broken: a.broken,
		LastErr: a.lastErr, PID: a.pid, Capabilities: append([]byte(nil), a.caps.raw...),
		OpenDocuments: make(map[string]int32), InFlight: len(a.calls), Indexing: a.indexing(),
	}
	for _, r := range a.regs {
		s.Registrations = append(s.Registrations, r)
	}
	for uri, d := range a.st.docs {
		if d.open {
			s.OpenDocuments[uri] = d.version
		}
	}
	if a.inc != nil {
		if c := a.inc.connection(); c != nil {
			s.StderrTail = c.StderrTail()
		}
	}
	return s
}

func (a *serverActor) indexing() bool { return len(a.progress) > 0 }

// retryIfBroken gives a broken server a new try when the policy allows it:
// any use of the server (a request, a document change) counts.
func (a *serverActor) retryIfBroken(ctx actor.Context) {
	if a.broken {
		a.retryBroken(ctx)
	}
}
