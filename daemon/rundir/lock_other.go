//go:build !unix

package rundir

import "context"

// Lock is a held lock; shared daemons need flock, which this system lacks.
type Lock struct{}

// Release does nothing.
func (l *Lock) Release() error { return nil }

// AcquireDaemon returns ErrUnsupported.
func (f Files) AcquireDaemon() (*Lock, error) { return nil, ErrUnsupported }

// AcquireStart returns ErrUnsupported.
func (f Files) AcquireStart(context.Context) (*Lock, error) { return nil, ErrUnsupported }

func (f Files) probe() (bool, error) { return false, ErrUnsupported }

func private(string) error { return nil }
