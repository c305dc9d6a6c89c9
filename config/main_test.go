package config

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaks a goroutine (the package starts none).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
