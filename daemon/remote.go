package daemon

import (
	"fmt"
	"net"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	_ "github.com/agentlsp/agentlsp/daemon/codec" // our messages' serializer
)

const (
	// loopback is the only address remotes listen on.
	loopback = "127.0.0.1"
	// maxMessage bounds one gRPC message (a batch of remote messages).
	maxMessage = 256 << 20
	// remoteStopTimeout bounds a remote's graceful shutdown; then it is
	// stopped hard (protoactor's own wait is 10 s, and gRPC's graceful stop
	// waits for every open stream).
	remoteStopTimeout = 2 * time.Second
	// listenTries is how often a free port is tried.
	listenTries = 5
)

// startRemote starts protoactor remote on sys, on a free port of
// 127.0.0.1, with a's token checks. remote.Start panics when it cannot
// listen: the port is checked first, and a panic (the port taken in the
// meantime) is recovered and another port tried. It returns the remote
// and its address.
func startRemote(sys *actor.ActorSystem, a *auth) (*remote.Remote, string, error) {
	var last error
	for range listenTries {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		cfg := remote.Configure(loopback, port,
			remote.WithServerOptions(grpc.StreamInterceptor(a.streamServer), grpc.UnaryInterceptor(a.unaryServer),
				grpc.MaxRecvMsgSize(maxMessage)),
			remote.WithDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithStreamInterceptor(a.streamClient),
				grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage))),
			// Its queues are preallocated: 1,000,000 slots (16 MB) per peer
			// by default. They grow when needed.
			remote.WithEndpointWriterQueueSize(1024), remote.WithEndpointManagerQueueSize(1024),
		)
		// A failed connection costs one try and a 2 s pause, not five.
		cfg.MaxRetryCount = 1
		r := remote.NewRemote(sys, cfg)
		if last = start(r); last == nil {
			return r, sys.Address(), nil
		}
	}
	return nil, "", fmt.Errorf("daemon: cannot listen on %s: %w", loopback, last)
}

// freePort returns a port of 127.0.0.1 that could be bound just now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(loopback, "0"))
	if err != nil {
		return 0, fmt.Errorf("daemon: cannot listen on %s: %w", loopback, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs r.Start, turning its panic into an error.
func start(r *remote.Remote) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("remote.Start: %v", p)
		}
	}()
	r.Start()
	return nil
}

// stopRemote shuts r down gracefully (its peers are told to disconnect,
// its endpoint actors stop), bounded by remoteStopTimeout, after which its
// gRPC server is stopped hard. It returns when r is down.
func stopRemote(r *remote.Remote) {
	done := make(chan struct{})
	// Lives until the graceful shutdown returns, which the hard stop below
	// forces.
	go func() {
		defer close(done)
		r.Shutdown(true)
	}()
	select {
	case <-done:
	case <-time.After(remoteStopTimeout):
		r.Shutdown(false)
		<-done
	}
}
