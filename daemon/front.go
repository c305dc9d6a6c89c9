package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"

	"github.com/agentlsp/agentlsp/messages"
)

// idBits is how many low bits of a request or edit id the client chooses;
// the bits above say which client it is (Attached.IDBase).
const idBits = 40

// statusTimeout bounds the router's answer to the front's status request.
const statusTimeout = 5 * time.Second

// frontConfig configures the front actor.
type frontConfig struct {
	router, diag *actor.PID // the runtime's actors, at the daemon's address
	workspace    string
	version      string
	configFile   string
	address      string
	started      time.Time
	clients      *atomic.Int32 // how many clients are attached, for the idle timeout
	log          *slog.Logger
}

// front is the daemon's front actor: clients attach to it (it names them
// and tells them where the router and the diagnostics actor are), and
// when protoactor remote loses a client's endpoint (it exited, was
// killed, or its connection broke) it ends every session the client used,
// so the documents it held open are released.
type front struct {
	cfg     frontConfig
	clients map[string]*client // by link PID (address/id)
	next    uint64
	sub     *eventstream.Subscription
}

// client is one attached client.
type client struct {
	name     string
	base     uint64
	link     *actor.PID
	pid      int
	sessions map[string]bool // as the client names them
	since    time.Time
}

func newFront(cfg frontConfig) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &front{cfg: cfg, clients: map[string]*client{}}
	})
}

// Receive handles one message; it never blocks.
func (f *front) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		f.sub = watchEndpoints(ctx)
	case *actor.Stopping:
		ctx.ActorSystem().EventStream.Unsubscribe(f.sub)
	case *messages.Attach:
		ctx.Respond(f.attach(ctx, m))
	case *messages.ClientSession:
		f.session(m)
	case *endpointGone:
		f.gone(ctx, m.address)
	case *messages.SessionEnded:
		f.cfg.log.Debug("daemon: released a session of a client that went", "session", m.Session, "documents", m.Released)
	case *messages.GetDaemonStatus:
		f.status(ctx)
	}
}

// attach accepts a client, or the same client again (its link
// re-attaching keeps its name).
func (f *front) attach(ctx actor.Context, m *messages.Attach) *messages.Attached {
	out := &messages.Attached{Router: f.cfg.router.Id, Diagnostics: f.cfg.diag.Id,
		Version: f.cfg.version, ConfigFile: f.cfg.configFile}
	switch {
	case m.Version != f.cfg.version:
		out.Err = fmt.Errorf("%w: the client is %s, the daemon %s", messages.ErrVersionMismatch, m.Version, f.cfg.version)
		return out
	case m.ConfigFile != "" && m.ConfigFile != f.cfg.configFile:
		out.Err = fmt.Errorf("%w: the client wants %q, the daemon runs with %q", messages.ErrConfigMismatch, m.ConfigFile, f.cfg.configFile)
		return out
	}
	link := actor.NewPID(m.LinkAddress, m.LinkID)
	key := link.Address + "/" + link.Id
	c, ok := f.clients[key]
	if !ok {
		f.next++
		c = &client{name: fmt.Sprintf("c%d", f.next), base: f.next << idBits, link: link, pid: m.ClientPID,
			sessions: map[string]bool{}, since: time.Now()}
		f.clients[key] = c
		f.cfg.clients.Store(int32(len(f.clients)))
		f.cfg.log.Info("daemon: client attached", "client", c.name, "pid", m.ClientPID, "address", link.Address)
	}
	for _, s := range m.Sessions {
		c.sessions[s] = true
	}
	out.Client, out.IDBase = c.name, c.base
	return out
}

// session records a session a client uses.
func (f *front) session(m *messages.ClientSession) {
	for _, c := range f.clients {
		if c.name == m.Client {
			c.sessions[m.Session] = true
			return
		}
	}
}

// gone ends every session of the clients at an address protoactor
// remote lost.
func (f *front) gone(ctx actor.Context, address string) {
	for key, c := range f.clients {
		if c.link.Address != address {
			continue
		}
		delete(f.clients, key)
		f.cfg.clients.Store(int32(len(f.clients)))
		f.cfg.log.Info("daemon: client gone; ending its sessions", "client", c.name, "pid", c.pid, "sessions", len(c.sessions))
		for s := range c.sessions {
			name := c.name + "/" + s
			ctx.Request(f.cfg.router, &messages.EndSession{Session: name})
			ctx.Send(f.cfg.diag, &messages.Unsubscribe{Session: name})
		}
	}
}

// status answers GetDaemonStatus with the router's servers.
func (f *front) status(ctx actor.Context) {
	st := &messages.DaemonStatus{Workspace: f.cfg.workspace, Version: f.cfg.version, PID: os.Getpid(),
		Address: f.cfg.address, Started: f.cfg.started}
	for _, c := range f.clients {
		st.Clients = append(st.Clients, messages.ClientInfo{Client: c.name, PID: c.pid, Sessions: len(c.sessions), Since: c.since})
	}
	sender := ctx.Sender()
	fut := ctx.RequestFuture(f.cfg.router, &messages.GetRouterStatus{}, statusTimeout)
	ctx.ReenterAfter(fut, func(res any, err error) {
		if rs, ok := res.(*messages.RouterStatus); ok {
			st.Servers = rs.Servers
		} else {
			st.Err = fmt.Errorf("daemon: router status: %v", err)
		}
		ctx.Send(sender, st)
	})
}
