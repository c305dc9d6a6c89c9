//go:build !linux

package transport

// start starts the process and its waiter. It blocks until the process has
// started or failed to.
func (p *process) start() error {
	if err := p.cmd.Start(); err != nil {
		return err
	}
	// The waiter lives until the process exits; joined by wait (through
	// exited).
	go p.reap()
	return nil
}
