package benchcmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcStatus reads the numeric fields named (such as "VmRSS", in kB, or
// "Threads") from /proc/PID/status; pid may be "self". ok is false when
// the process is gone; a field it lacks is absent from the map.
func ProcStatus(pid string, fields ...string) (values map[string]float64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return nil, false
	}
	values = make(map[string]float64, len(fields))
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 || !contains(fields, k) {
			continue
		}
		if n, err := strconv.ParseFloat(f[0], 64); err == nil {
			values[k] = n
		}
	}
	return values, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
