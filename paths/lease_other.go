//go:build !linux

package paths

import "os"

// openRead opens a file to read.
func openRead(abs string) (*os.File, error) { return os.Open(abs) }

// takeLease: leases are Linux's (fcntl F_SETLEASE).
func takeLease(*os.File) Lease { return LeaseNone }

func dropLease(*os.File) {}
