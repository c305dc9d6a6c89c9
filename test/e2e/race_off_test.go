//go:build !race

package e2e

// raceFlags builds the command under test with the race detector when the
// tests run with it.
var raceFlags []string
