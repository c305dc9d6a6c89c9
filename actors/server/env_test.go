package server

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A server that talks to a daemon shared with other processes through the
// temporary directory (gopls -remote=auto) keeps the inherited TMPDIR; any
// other gets its own from the transport, unless its env sets one.
func TestProcessEnvKeepsTheTempDirOfSharedDaemons(t *testing.T) {
	tmp := "TMPDIR=" + os.TempDir()
	tests := []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{nil, map[string]string{"B": "2", "A": "1"}, []string{"A=1", "B=2"}},
		{[]string{"-remote=auto"}, nil, []string{tmp}},
		{[]string{"serve", "--remote", "unix;/run/gopls.sock"}, map[string]string{"A": "1"}, []string{"A=1", tmp}},
		{[]string{"-remote=auto"}, map[string]string{"TMPDIR": "/mine"}, []string{"TMPDIR=/mine"}},
		{[]string{"-remote.debug=:0", "remote", "-rpc.trace"}, nil, []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, processEnv(tt.args, tt.env)); diff != "" {
			t.Errorf("processEnv(%q, %v) (-want +got):\n%s", tt.args, tt.env, diff)
		}
	}
}
