package benchcmd

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks, after the tests, that no goroutine leaked.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestProcStatus(t *testing.T) {
	v, ok := ProcStatus("self", "VmRSS", "Threads", "NoSuchField")
	if !ok || v["VmRSS"] <= 0 || v["Threads"] < 1 {
		t.Errorf("ProcStatus(self) = %v, %v; want a resident size and threads", v, ok)
	}
	if _, has := v["NoSuchField"]; has {
		t.Errorf("ProcStatus(self) has a field /proc does not: %v", v)
	}
	if _, ok := ProcStatus("999999999", "VmRSS"); ok {
		t.Error("ProcStatus of a process that does not exist says ok")
	}
}
