package fakelsp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// reply answers r, shaped by --oversize-on, --invalid-utf8-on and --delay.
func (s *server) reply(r *request, result any, rerr *rpcError) {
	body := responseBody(r.id, result, rerr)
	if rerr == nil {
		body = s.malform(r, body)
	}
	d := s.cfg.delay[r.method]
	if d <= 0 {
		s.write(body)
		return
	}
	s.addPending(r.id)
	s.sched.after(d, func() {
		if s.takePending(r.id) { // else $/cancelRequest answered it
			s.write(body)
		}
	})
}

// malform replaces a successful answer as --invalid-utf8-on and
// --oversize-on say.
func (s *server) malform(r *request, body []byte) []byte {
	if s.cfg.invalidUTF8On[r.method] {
		body = fmt.Appendf(nil, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"contents\":\"fake \xff\xfe invalid\"}}", r.id)
	}
	if size, ok := s.cfg.oversizeOn[r.method]; ok && size > len(body) {
		body = append(body, bytes.Repeat([]byte(" "), size-len(body))...)
	}
	return body
}

// checkCrash applies --crash-after and --exit-on to the message just
// received. It returns only if env.exit returns.
func (s *server) checkCrash(m *message) (code int, done bool) {
	switch {
	case s.cfg.crashAfter > 0 && s.received >= s.cfg.crashAfter:
		return s.abort(2, fmt.Sprintf("fakelsp: crashing after %d messages", s.received))
	case m.Method != "" && s.cfg.exitOn[m.Method]:
		return s.abort(3, "fakelsp: exiting on "+m.Method)
	}
	return 0, false
}

// abort ends the process at once, flushing nothing.
func (s *server) abort(code int, why string) (int, bool) {
	s.log.printf("%s", why)
	s.env.exit(code)
	return code, true
}

// stopReading blocks without reading, as --stop-reading-after says, until
// env.halt closes (never, in a real process). Scheduled work goes on. The
// ticker keeps a timer pending so that the runtime never declares deadlock.
func (s *server) stopReading() int {
	s.log.printf("fakelsp: stopped reading after %d messages", s.received)
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-s.env.halt:
			return 1
		case <-tick.C:
		}
	}
}

// startGrandchild starts `sleep 600` in the fake's process group with its
// standard streams on the null device, writes its pid to pidfile (when
// given) atomically, and never waits for it.
func startGrandchild(pidfile string) error {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	if err := cmd.Process.Release(); err != nil {
		return err
	}
	if pidfile == "" {
		return nil
	}
	tmp := filepath.Join(filepath.Dir(pidfile), "."+filepath.Base(pidfile)+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, pidfile)
}
