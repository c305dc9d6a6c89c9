package results

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks, after the tests, that no goroutine leaked.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
