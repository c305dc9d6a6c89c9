package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// WithMiddleware wraps the server's handling of requests with m, for the
// tests to slow or watch it.
func WithMiddleware(m sdk.Middleware) Option {
	return func(o *options) { o.middleware = append(o.middleware, m) }
}
