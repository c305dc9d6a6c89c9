package server

import (
	"log/slog"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/lifecycle"
	"github.com/agentlsp/agentlsp/actors/server/calls"
	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/config"
	"github.com/agentlsp/agentlsp/lspglob"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/supervisor"
)

// Config configures one server actor.
type Config struct {
	// Server is the definition to run; the actor keeps its own copy.
	Server *config.Server
	// Root is the project root (absolute); the process runs there.
	Root string
	// Observers receive StateChanged, PublishedDiagnostics and Progress.
	Observers []*actor.PID
	// Policy is the restart policy; MaxCrashes defaults to the server's
	// maxRestarts.
	Policy supervisor.Policy
	// Reaper joins the actor's goroutines; required.
	Reaper *lifecycle.Reaper
	// Dispatcher runs the actor's mailbox; nil: protoactor's default.
	Dispatcher *lifecycle.Dispatcher
	// RetryBackoff is the first delay of the ContentModified retries
	// (default 500ms, doubling, 3 retries).
	RetryBackoff time.Duration
	// Logger for the actor's own logs; nil discards.
	Logger *slog.Logger
	// Clock and Rand are the time and jitter sources (tests); nil: real ones.
	Clock lifecycle.Clock
	Rand  func() float64
}

// waitingFactor bounds the requests held: at most MaxInFlight in flight
// and (waitingFactor-1) x MaxInFlight waiting, each with its own deadline;
// beyond that, ErrOverloaded at once.
const waitingFactor = 4

// NewProps returns the props of a server actor. The state that must
// survive a restart of the actor after a panic (open documents, versions,
// crash budget, incarnation count) lives in the producer's closure, so a
// restarted actor re-opens every document with its latest text.
func NewProps(cfg Config) *actor.Props {
	cfg.Server = cfg.Server.Clone()
	lim := cfg.Server.Effective()
	if cfg.Policy.MaxCrashes == 0 {
		cfg.Policy.MaxCrashes = lim.MaxRestarts
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = lifecycle.RealClock{}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	st := &durable{docs: docs.New(), budget: supervisor.NewBudget(cfg.Policy)}
	readyLog := compileReadyLog(cfg.Server.ReadyLog, cfg.Logger, cfg.Server.ID)
	load := newLoadWatch(cfg.Server, cfg.Logger)
	configGlobs := compileConfigFiles(cfg.Server.ConfigFiles, cfg.Logger, cfg.Server.ID)
	return actor.PropsFromProducer(func() actor.Actor {
		return &serverActor{cfg: cfg, lim: lim, st: st, readyLog: readyLog, load: load, configGlobs: configGlobs}
	}, cfg.Dispatcher.Options()...)
}

// durable is the server actor's state that survives actor restarts.
type durable struct {
	docs     *docs.Store
	budget   *supervisor.Budget
	gen      int // incarnations started
	restarts int // after crashes
	// reconfigured counts the restarts after a change of a configuration
	// file (reconfigure.go), and reconfiguredAt is when the last one began.
	reconfigured   int
	reconfiguredAt time.Time
}

// serverActor owns one language-server process (one incarnation at a
// time) and its connection: the thin shell that feeds its cores (the call
// queue, the document store, the pull scheduler) with messages and timers
// and carries out what they decide. Its state machine: stopped -> starting
// -> running -> stopping -> stopped, and error after a crash (restart
// pending) or when broken.
type serverActor struct {
	cfg  Config
	lim  config.Effective
	st   *durable
	self *actor.PID

	state    messages.ServerState
	inc      *incarnation // the current process generation, nil when none
	osPID    int
	caps     serverCaps
	regs     map[string]messages.Registration
	matchers map[string]*lspglob.WatchMatcher // compiled didChangeWatchedFiles registrations
	pulls    *pulls.Scheduler
	// pulledWaiters are the AwaitPulled asks held (awaitpulled.go).
	pulledWaiters []pulledWaiter
	// changedOnDisk are the source files not open that changed on disk
	// since the server last had them opened (at most maxChangedOnDisk,
	// then forgotten): opening one re-pulls the other open documents
	// first, as a change does (watch.go).
	changedOnDisk map[string]struct{}
	progress      map[string]int // work-done progress tokens in flight: workIndexing or workDiagnosis
	// afterIndex are the requests whose answers are held until the work
	// in progress ends (indexwait.go); at most the calls held.
	afterIndex []uint64
	works      uint64 // indexing works begun, ever: see pending.works
	// signals: this incarnation reported a diagnosis of changes (gopls's
	// "diagnosing" progress), whose end says its diagnostics are
	// complete; lastTouch is the last touch sent to it (barrier.go).
	signals   bool
	lastTouch touchMark
	// check is the server's check on save (savecheck.go).
	check saveCheck
	// pullBacklog are the actor's own pulls waiting for room in the call
	// queue, where pullsQueued of them are (pull.go).
	pullBacklog []pulls.Request
	pullsQueued int
	// repulledAt is the store's Seq at the last re-pull of a document
	// instead of a touch that re-pulled the others too, in this
	// incarnation (repull).
	repulledAt uint64

	calls   *calls.Queue
	timers  *lifecycle.Timers
	broken  bool
	lastErr error
	retryAt time.Time // when a broken server may be tried again (zero: when its binary exists)
	// activity counts requests and document messages received; idleTimer
	// is the pending idle check (one at a time).
	activity     uint64
	idleTimer    uint64
	nextPull     uint64
	runningSince time.Time // when the current process finished its handshake
	// The wait for the server's ready line (ready.go): its pattern, whether
	// it is awaited, whether this incarnation logged it, and the requests
	// parked until then.
	readyLog   *regexp.Regexp
	notReady   bool
	readySeen  bool
	afterReady []uint64
	// configGlobs are the definition's ConfigFiles, compiled
	// (reconfigure.go); configStamps the disk's stamps of those that name
	// one file, when the process last started.
	configGlobs  []*lspglob.Glob
	configStamps map[string]paths.Stamp
	// load is what the server said of its project's load (load.go).
	load loadWatch
	// configChangedAt is when a configuration file last changed
	// (reconfigure.go).
	configChangedAt time.Time
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
	case *lifecycle.Fired:
		a.handle(ctx, a.timers.Fired(m))
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
	case *indexWaitOver:
		a.onIndexWaitOver(ctx, m)
	case *checkGraceOver:
		a.onCheckGraceOver(ctx, m)
	case *checkSaveNow:
		a.onCheckSaveNow(ctx, m)
	case *readyOver:
		a.onReadyOver(ctx, m)
	case *reconfigureDue:
		a.onReconfigureDue(ctx)
	case *messages.OpenDocument, *messages.ChangeDocument, *messages.TouchDocument,
		*messages.SaveDocument, *messages.CloseDocument:
		a.activity++
		if file, ok := a.configStampChanged(); ok {
			a.reconfigure(ctx, file)
		}
		ctx.Respond(a.onDocument(ctx, m))
		a.answerPulledWaiters(ctx) // a document closed is pulled as far as it goes
		a.scheduleIdle()
	case *messages.GetServerStatus:
		ctx.Respond(a.status())
	case *messages.AwaitPulled:
		a.onAwaitPulled(ctx, m)
	case *messages.FilesChanged:
		if file, ok := a.configChanged(m); ok {
			a.reconfigure(ctx, file)
			return
		}
		a.onFilesChanged(ctx, m)
	case *messages.StopServer:
		ctx.Stop(ctx.Self())
	}
}

func (a *serverActor) onStarted(ctx actor.Context) {
	a.self = ctx.Self()
	a.calls = calls.New(a.lim.MaxInFlight, waitingFactor*a.lim.MaxInFlight)
	a.timers = lifecycle.NewTimers(ctx, a.cfg.Clock)
	a.regs = make(map[string]messages.Registration)
	a.matchers = make(map[string]*lspglob.WatchMatcher)
	a.pulls = pulls.New()
	a.progress = make(map[string]int)
	a.start(ctx)
	a.scheduleIdle()
}

// onStopping shuts the process down gracefully (in a reaper goroutine) and
// answers everything pending with ErrShutdown.
func (a *serverActor) onStopping(ctx actor.Context) {
	a.timers.StopAll()
	if a.inc != nil {
		a.inc.shutdown(a.cfg.Reaper, a.lim.ShutdownTimeout)
		a.inc = nil
	}
	a.failAll(ctx, a.serverError(messages.ErrShutdown, nil, nil))
	a.setState(ctx, messages.StateStopped, nil)
}

// onRestarting: the actor panicked and is restarted by its supervisor. The
// process is killed now; the new instance starts a fresh one and re-opens
// the documents kept in the durable state.
func (a *serverActor) onRestarting(ctx actor.Context) {
	if a.timers != nil {
		a.timers.StopAll()
	}
	if a.inc != nil {
		a.inc.kill()
		a.inc = nil
	}
	if a.calls != nil {
		a.failAll(ctx, a.serverError(messages.ErrServerCrashed, errActorRestarted, nil))
	}
}

// setState records a transition and tells the observers.
func (a *serverActor) setState(ctx actor.Context, s messages.ServerState, err error) {
	a.state = s
	msg := &messages.StateChanged{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, State: s,
		Incarnation: a.st.gen, PID: a.osPID, Broken: a.broken, Err: err,
	}
	a.tellObservers(ctx, msg)
	a.answerPulledWaiters(ctx) // a server that stopped running pulls nothing
}

func (a *serverActor) tellObservers(ctx actor.Context, msg any) {
	for _, o := range a.cfg.Observers {
		ctx.Send(o, msg)
	}
}

func (a *serverActor) key() messages.ServerKey {
	return messages.ServerKey{ServerID: a.cfg.Server.ID, Root: a.cfg.Root}
}

func (a *serverActor) status() *messages.ServerStatus {
	s := &messages.ServerStatus{
		ServerID: a.cfg.Server.ID, Root: a.cfg.Root, State: a.state,
		Incarnation: a.st.gen, Restarts: a.st.restarts, Broken: a.broken,
		LastErr: a.lastErr, PID: a.osPID, Capabilities: append([]byte(nil), a.caps.raw...),
		OpenDocuments: a.st.docs.Versions(), InFlight: a.calls.Len(), Sent: a.calls.InFlight(), Indexing: a.indexing(),
		Timers: a.timers.Len(), Reconfigured: a.st.reconfigured,
	}
	for _, r := range a.regs {
		s.Registrations = append(s.Registrations, r)
	}
	if a.inc != nil {
		if c := a.inc.connection(); c != nil {
			s.StderrTail = c.StderrTail()
		}
	}
	return s
}

// indexing reports work in progress other than diagnoses and checks on
// save: the server loads its project.
func (a *serverActor) indexing() bool { return a.inProgress(workIndexing) > 0 }

func (a *serverActor) running() bool { return a.state == messages.StateRunning && a.inc != nil }
