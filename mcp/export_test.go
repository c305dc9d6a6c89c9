package mcp

import (
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// WithMiddleware wraps the server's handling of requests with m, for the
// tests to slow or watch it.
func WithMiddleware(m sdk.Middleware) Option {
	return func(o *options) { o.middleware = append(o.middleware, m) }
}

// WithInputEndGrace sets how long the calls in flight when the input
// ends may go on before they are answered with ErrShutdown.
func WithInputEndGrace(d time.Duration) Option {
	return func(o *options) { o.inputEndGrace = d }
}
