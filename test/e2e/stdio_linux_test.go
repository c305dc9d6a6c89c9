package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMCPStdioNonBlocking: `agentlsp mcp` given pipes puts its stdin and
// stdout in non-blocking mode (reads and writes wait in Go's poller, not
// in a blocking system call) and still serves and ends at the end of its
// input.
func TestMCPStdioNonBlocking(t *testing.T) {
	cmd := exec.Command(agentlspBinary(t), "mcp", "--workspace", t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"id":1`) {
		t.Fatalf("no answer to initialize: %q %v", sc.Text(), sc.Err())
	}
	for fd, name := range []string{"stdin", "stdout"} {
		if flags := fdFlags(t, cmd.Process.Pid, fd); flags&syscall.O_NONBLOCK == 0 {
			t.Errorf("%s of agentlsp mcp: flags %#o, want O_NONBLOCK", name, flags)
		}
	}
	stdin.Close()
	for sc.Scan() { // the end of its input ends the server: stdout closes
	}
}

// fdFlags reads the open flags of a process's descriptor (proc(5) fdinfo).
func fdFlags(t *testing.T, pid, fd int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil {
				t.Fatalf("fdinfo flags %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no flags in fdinfo:\n%s", b)
	return 0
}
