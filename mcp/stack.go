package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// handlerStack is the stack a tool call's goroutine grows to before the
// SDK decodes the call. The SDK starts one goroutine per request on the
// smallest stack, and decoding, the tool and the runtime's API then grew
// it several times in every call: copying stacks was a tenth of `agentlsp
// mcp`'s CPU over a run of hovers. Grown once at the shallowest point, the
// copy is of almost nothing.
const handlerStack = 32 << 10

// growStack is the middleware that grows a tool call's stack first.
func growStack(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			reserveStack()
		}
		return next(ctx, method, req)
	}
}

// padAt is a variable, so that the compiler keeps reserveStack's frame.
var padAt = handlerStack - 1

// reserveStack needs a frame of handlerStack bytes: the runtime grows the
// goroutine's stack to hold it.
//
//go:noinline
func reserveStack() byte {
	var pad [handlerStack]byte
	pad[padAt] = 1
	return pad[padAt/2]
}
