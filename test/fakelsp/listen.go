package fakelsp

import (
	"net"
	"strings"
)

// serveListener serves one connection accepted on --listen, then returns.
// It writes "fakelsp: listening on NETWORK:ADDR" to stderr once listening,
// so that a test that asked for port 0 can find the port.
func serveListener(cfg *config, log *logger, e env) int {
	network, addr, _ := strings.Cut(cfg.listen, ":")
	ln, err := net.Listen(network, addr)
	if err != nil {
		log.printf("fakelsp: listen: %v", err)
		return 1
	}
	log.printf("fakelsp: listening on %s:%s", network, ln.Addr())
	conn, err := ln.Accept()
	_ = ln.Close()
	if err != nil {
		log.printf("fakelsp: accept: %v", err)
		return 1
	}
	defer conn.Close()
	return serve(cfg, conn, conn, log, e)
}
