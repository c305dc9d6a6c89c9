package codec

import (
	"testing"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks for leaked goroutines and processes (testenv.Main).
func TestMain(m *testing.M) { testenv.Main(m) }
