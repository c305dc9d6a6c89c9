package messages

import (
	"errors"
	"time"
)

// Errors of the shared daemon (agentlsp serve).
var (
	// ErrVersionMismatch: a client attached to a daemon of another version.
	// Clients never do this on their own: each version runs its own daemon.
	ErrVersionMismatch = errors.New("agentlsp: the daemon runs another version")
	// ErrConfigMismatch: a client asked a daemon for another configuration
	// file than the one it runs with.
	ErrConfigMismatch = errors.New("agentlsp: the daemon runs with another configuration")
)

// Attach asks a daemon's front actor to accept a client: a process that
// sends messages to the daemon's router and diagnostics actors. The front
// watches the client's link actor (LinkAddress, LinkID) and, when it
// terminates (the client exited or vanished), ends every session the
// client used. The reply is Attached.
type Attach struct {
	Version     string
	Workspace   string
	ConfigFile  string // the configuration the client expects ("" accepts the daemon's)
	LinkAddress string
	LinkID      string
	ClientPID   int
	Sessions    []string // sessions the client already has (when it re-attaches)
}

// Attached answers Attach. Client names the client in the daemon: the
// client puts it before its session names ("c3/mcp-1") and IDBase above its
// request and edit ids, so clients never share a session or an id. Router
// and Diagnostics are the process ids of the actors in the daemon (at the
// daemon's address).
type Attached struct {
	Client      string
	IDBase      uint64
	Router      string
	Diagnostics string
	Version     string
	ConfigFile  string
	Err         error // ErrVersionMismatch, or nil
}

// ClientSession tells the front that a client uses a session, so that the
// session ends when the client goes. No reply.
type ClientSession struct {
	Client  string
	Session string
}

// GetDaemonStatus asks a daemon's front for DaemonStatus.
type GetDaemonStatus struct{}

// DaemonStatus describes a running daemon.
type DaemonStatus struct {
	Workspace string
	Version   string
	PID       int
	Address   string
	Started   time.Time
	Clients   []ClientInfo
	Servers   []ServerInfo
	Err       error // why the servers are missing, when they are
}

// ClientInfo is one client attached to a daemon.
type ClientInfo struct {
	Client   string
	PID      int
	Sessions int
	Since    time.Time
}
