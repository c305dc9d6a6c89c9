package codec

import (
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks for leaked goroutines and processes (testenv.Main).
// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }
