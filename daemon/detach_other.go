//go:build !unix

package daemon

import (
	"context"

	"github.com/agentlsp/agentlsp/daemon/rundir"
)

// ReadyEnv names the file descriptor on which a detached daemon says that
// it serves.
const ReadyEnv = "AGENTLSP_READY_FD"

// Detach is not supported on this system.
func Detach(context.Context, []string, string) error { return rundir.ErrUnsupported }

// Ready returns nil: daemons are not started detached on this system.
func Ready() func(error) { return nil }
